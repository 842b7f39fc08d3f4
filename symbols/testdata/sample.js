const path = require('path');
import { load } from './loader.js';

/** Parses a config file. */
function parseConfig(file) {
  return load(path.join('.', file));
}

class Reader extends Base {
  read() { return parseConfig('x'); }
}

const run = () => new Reader().read();
module.exports = { parseConfig };
