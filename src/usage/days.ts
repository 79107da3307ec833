/** How many days `by_day`, `by_model`, `by_pack` and `by_kind` cover unless asked. */
export const DEFAULT_DAYS = 30;
export const MAX_DAYS = 366;
