const path = require('path');
import { load } from './loader.js';

/** Parses a config file. */
function parseConfig(file) {
  return load(path.join('.', file));
}

class Reader extends Base {
  read() { return parseConfig('x'); }
  reset = () => { this.pos = 0; };
  #skip() { return this.#next(); }
  #next = function () { return 1; };
  size = 0;
}

const run = () => new Reader().read();
module.exports = { parseConfig };

/** Sends a body (CommonJS style). */
var res = Object.create(null);
res.send = function send(body) {
  return parseConfig(body);
};
Reader.prototype.close = function () {};
module.exports.helper = (x) => x + 1;
var legacy = function (a) { return a; };
function wire() {
  res.later = function () {}; // inside a function: not a declaration
}
// Object literals at the top level: CommonJS, prototypes, class factories.
var View = Base.extend({
  render: function () { return parseConfig('v'); },
  count: 1,
});
exports.Request = Class({
  accepts: function (type) { return type; },
});
Reader.prototype = { open: function () {} };
module.exports = { format: (x) => String(x) };
export default { mount: function () {} };
function setup() {
  return { onClick: function () {} }; // inside a function: not a declaration
}
