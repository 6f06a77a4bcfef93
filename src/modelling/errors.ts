/**
 * Errors the modelling engine raises. Each has a stable `code`; the module layer maps them to the
 * API's error envelope (INVALID_EXCLUDED_COLUMNS -> 400, AGGREGATION_FLOOR_NOT_MET -> 422).
 */

/** Caller input the engine cannot use (an unknown excluded column, a bad target size). */
export class ModelInputError extends Error {
  readonly code: 'INVALID_EXCLUDED_COLUMNS' | 'INVALID_MODEL_INPUT';
  /** Offending names, for the error envelope's issues. */
  readonly columns: readonly string[];
  /** Per offending name, the nearest catalog names. */
  readonly suggestions: Readonly<Record<string, readonly string[]>>;
  constructor(code: ModelInputError['code'], message: string, detail: { columns?: string[]; suggestions?: Record<string, string[]> } = {}) {
    super(message);
    this.name = 'ModelInputError';
    this.code = code;
    this.columns = detail.columns ?? [];
    this.suggestions = detail.suggestions ?? {};
  }
}

/** Which class was too small: the seed / positive class, or everyone else. */
export type FloorSubject = 'seed' | 'positive_class' | 'negative_class';

/**
 * A seed or positive class (or its complement) below the privacy floor: a model fitted to a handful
 * of people describes those people, so the engine refuses to fit it.
 */
export class ModelPrivacyFloorError extends Error {
  readonly code = 'AGGREGATION_FLOOR_NOT_MET' as const;
  readonly subject: FloorSubject;
  readonly floor: number;
  constructor(subject: FloorSubject, floor: number) {
    const what = subject === 'seed' ? 'The seed' : subject === 'positive_class' ? 'The positive class' : 'The rest of the graph';
    super(`${what} has fewer than the privacy minimum of ${floor} persons, so no model is trained on it.`);
    this.name = 'ModelPrivacyFloorError';
    this.subject = subject;
    this.floor = floor;
  }
}

/** Training could not produce a usable model (no features left, a class absent from the sample). */
export class ModelTrainingError extends Error {
  readonly code = 'MODEL_TRAINING_FAILED' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ModelTrainingError';
  }
}
