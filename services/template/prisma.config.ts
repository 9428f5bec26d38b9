import { prismaCliConfig } from '@tm/kit';
import { defineConfig } from 'prisma/config';

export default defineConfig(prismaCliConfig('TEMPLATE_DATABASE_URL', 'tm_template'));
