// Child process of bench/scale.ts: a bare Bolt app that only acks /flink, the reference for the bots' ack latency
// (one per bot, each its own process as the bots are). Prints {"url"}; runs until stdin closes.
import { startBareBolt } from './bare-bolt.js';

const [token, secret, apiUrl] = process.argv.slice(2) as [string, string, string];
const bare = await startBareBolt(token, secret, apiUrl);
process.stdout.write(`${JSON.stringify({ url: bare.url })}\n`);
process.stdin.resume();
process.stdin.on('end', () => void bare.stop().then(() => process.exit(0)));
