/** Whether each optional SDK has been loaded in the test file's module graph. */
export const loadedSdks = { gemini: false, groq: false };

/**
 * The body of a test file's `vi.mock` factory for an SDK: notes that it was loaded and
 * hands back the real module.
 */
export function noteSdkLoad<T>(sdk: keyof typeof loadedSdks, original: () => Promise<T>) {
  loadedSdks[sdk] = true;
  return original();
}
