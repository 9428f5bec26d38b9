import { prismaCliConfig } from '@tm/kit';
import { defineConfig } from 'prisma/config';

export default defineConfig(prismaCliConfig('TELEMETRY_DATABASE_URL', 'tm_telemetry'));
