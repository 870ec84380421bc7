// The one door from the simulators to the bot: its public entry (src/index.ts), which the sandbox starts and whose
// command language the page's composer hints at. Nothing else in this package reaches into the bot's sources.
export * from '../../../src/index.js';
