export const DELIVERY_EXPORT_JOB = 'delivery-export';
