import { prismaCliConfig } from '@tm/kit';
import { defineConfig } from 'prisma/config';

export default defineConfig(prismaCliConfig('WEBHOOKS_DATABASE_URL', 'tm_webhooks'));
