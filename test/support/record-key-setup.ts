// Every test file seals records with the run's key (global-setup.ts), so `serve` processes spawned with it agree.
import { RecordKey, useProcessRecordKey } from '../../src/config/record-key.js';

const key = process.env.RECORD_SIGNING_KEY;
if (key !== undefined) useProcessRecordKey(RecordKey.fromSecret(key));
