// The loader hook of module-log.mjs: runs on Node's loader thread, so it appends each ES
// module's URL to the file as it loads.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
