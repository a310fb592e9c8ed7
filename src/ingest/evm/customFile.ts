/** Reading a custom dataset declaration file (docs/custom-datasets.md) for `chainq ingest evm --custom` and config jobs. */
import fs from 'node:fs';
import { messageOf } from '../../utils/errorText.ts';
import { readCustomDeclaration } from '../../catalog/custom/customEndpoints.ts';
import { CustomDeclarationError, type CustomDataset } from '../../catalog/custom/declaration.ts';

/** A declaration file, checked; its mistakes are the operator's to fix, named with the file. */
export function readCustomFile(file: string): CustomDataset {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CustomDeclarationError(`${file}: ${messageOf(e)}`);
  }
  try {
    return readCustomDeclaration(json);
  } catch (e) {
    if (e instanceof CustomDeclarationError) throw new CustomDeclarationError(`${file}: ${e.message}`);
    throw e;
  }
}
