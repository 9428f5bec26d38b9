import { prismaCliConfig } from '@tm/kit';
import { defineConfig } from 'prisma/config';

export default defineConfig(prismaCliConfig('GATEWAY_DATABASE_URL', 'tm_gateway'));
