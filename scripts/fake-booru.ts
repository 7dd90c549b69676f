/**
 * `npm run fake-booru`: the local Philomena for trying the bot by hand. Listens on 127.0.0.1:$PORT
 * (default 8787); point the bot's site at the printed URL and use the printed key. Ctrl+C stops it.
 */
import { FAKE_KEY, FILTER_IDS, IDS, startFakePhilomena } from '../test/fakes/philomena/index.js';

const rawPort = process.env['PORT'];
const port = rawPort === undefined || rawPort.trim() === '' ? 8787 : Number(rawPort);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`PORT must be a port number (0-65535), got "${rawPort ?? ''}"`);
  process.exit(1);
}
const rawStyle = process.env['ERROR_STYLE'];
const errorStyle = rawStyle === 'upstream' ? 'upstream' : 'derpibooru';

const booru = await startFakePhilomena({ port, errorStyle });
console.log(`Fake Philomena (${errorStyle} style) listening on ${booru.url}`);
console.log(`API key (user BotOwner, id 9001): ${FAKE_KEY}`);
console.log('Try:');
console.log(`  ${booru.url}/api/v1/json/images/${IDS.safe}             (safe, featured)`);
console.log(`  ${booru.url}/api/v1/json/images/${IDS.explicit}             (explicit: hidden by Default)`);
console.log(`  ${booru.url}/api/v1/json/images/${IDS.merged}             (merged stub -> ${IDS.safe})`);
console.log(`  ${booru.url}/api/v1/json/images/${IDS.webm}             (webm)`);
console.log(`  ${booru.url}/api/v1/json/search/images?q=safe,pony&sf=score`);
console.log(`  ${booru.url}/api/v1/json/search/tags?q=name:twi*`);
console.log(`  ${booru.url}/api/v1/json/tags/littlepip          (alias of oc-colon-littlepip)`);
console.log(`  filters: Everything ${FILTER_IDS.everything}, Default ${FILTER_IDS.default}`);

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  booru
    .close()
    .then(() => {
      console.log('stopped');
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error('failed to stop cleanly:', error);
      process.exit(1);
    });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
