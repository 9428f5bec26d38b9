import { prismaCliConfig } from '@tm/kit';
import { defineConfig } from 'prisma/config';

export default defineConfig(prismaCliConfig('MEMORY_DATABASE_URL', 'tm_memory'));
