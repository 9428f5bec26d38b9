export { startTemplateService, type TemplateService } from './app.js';
export { loadTemplateConfig, type TemplateConfig, TemplateConfigSchema } from './config.js';
