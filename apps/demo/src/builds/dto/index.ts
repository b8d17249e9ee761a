export { BuildPackageDto } from './build-package.dto.js';
export { BuildReportDto } from './build-report.dto.js';
