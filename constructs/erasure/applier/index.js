"use strict";
var _a;
Object.defineProperty(exports, "__esModule", { value: true });
exports.Applier = void 0;
const JSII_RTTI_SYMBOL_1 = Symbol.for("jsii.rtti");
// The applier's face to the jsii kernel: the Go constructs call
// Applier.apply (constructs/erasure/applier.go). The jsii compiler makes
// this package's assembly (.jsii) and index.js from this file: `make
// applier` writes them, TestApplierIsTheJsiiCompilersOutput holds the
// committed ones to a fresh compile, and the Go module embeds them, so that
// `go get` needs no Node build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const applier = require('./apply.js');
/** Applies the erasure constructs' designs (apply.js). */
class Applier {
    /**
     * Builds design (a design.Design as JSON) with the objects the caller holds
     * by name.
     *
     * @returns what the design made, by name, and what it read (a
     * design.Answer as JSON) as "answer".
     */
    static apply(design, objects) {
        return applier.applyText(design, objects);
    }
    constructor() { }
}
exports.Applier = Applier;
_a = JSII_RTTI_SYMBOL_1;
Applier[_a] = { fqn: "erasure-channel-applier.Applier", version: "2.0.0" };
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiaW5kZXguanMiLCJzb3VyY2VSb290IjoiIiwic291cmNlcyI6WyJpbmRleC50cyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiOzs7OztBQUFBLGdFQUFnRTtBQUNoRSx5RUFBeUU7QUFDekUscUVBQXFFO0FBQ3JFLHNFQUFzRTtBQUN0RSw0RUFBNEU7QUFDNUUsZ0NBQWdDO0FBRWhDLGlFQUFpRTtBQUNqRSxNQUFNLE9BQU8sR0FBcUcsT0FBTyxDQUFDLFlBQVksQ0FBQyxDQUFDO0FBRXhJLDBEQUEwRDtBQUMxRCxNQUFhLE9BQU87SUFDbEI7Ozs7OztPQU1HO0lBQ0ksTUFBTSxDQUFDLEtBQUssQ0FBQyxNQUFjLEVBQUUsT0FBZ0M7UUFDbEUsT0FBTyxPQUFPLENBQUMsU0FBUyxDQUFDLE1BQU0sRUFBRSxPQUFPLENBQUMsQ0FBQztJQUM1QyxDQUFDO0lBRUQsZ0JBQXVCLENBQUM7O0FBWjFCLDBCQWFDIiwic291cmNlc0NvbnRlbnQiOlsiLy8gVGhlIGFwcGxpZXIncyBmYWNlIHRvIHRoZSBqc2lpIGtlcm5lbDogdGhlIEdvIGNvbnN0cnVjdHMgY2FsbFxuLy8gQXBwbGllci5hcHBseSAoY29uc3RydWN0cy9lcmFzdXJlL2FwcGxpZXIuZ28pLiBUaGUganNpaSBjb21waWxlciBtYWtlc1xuLy8gdGhpcyBwYWNrYWdlJ3MgYXNzZW1ibHkgKC5qc2lpKSBhbmQgaW5kZXguanMgZnJvbSB0aGlzIGZpbGU6IGBtYWtlXG4vLyBhcHBsaWVyYCB3cml0ZXMgdGhlbSwgVGVzdEFwcGxpZXJJc1RoZUpzaWlDb21waWxlcnNPdXRwdXQgaG9sZHMgdGhlXG4vLyBjb21taXR0ZWQgb25lcyB0byBhIGZyZXNoIGNvbXBpbGUsIGFuZCB0aGUgR28gbW9kdWxlIGVtYmVkcyB0aGVtLCBzbyB0aGF0XG4vLyBgZ28gZ2V0YCBuZWVkcyBubyBOb2RlIGJ1aWxkLlxuXG4vLyBlc2xpbnQtZGlzYWJsZS1uZXh0LWxpbmUgQHR5cGVzY3JpcHQtZXNsaW50L25vLXJlcXVpcmUtaW1wb3J0c1xuY29uc3QgYXBwbGllcjogeyBhcHBseVRleHQoZGVzaWduOiBzdHJpbmcsIG9iamVjdHM6IHsgW25hbWU6IHN0cmluZ106IHVua25vd24gfSk6IHsgW25hbWU6IHN0cmluZ106IHVua25vd24gfSB9ID0gcmVxdWlyZSgnLi9hcHBseS5qcycpO1xuXG4vKiogQXBwbGllcyB0aGUgZXJhc3VyZSBjb25zdHJ1Y3RzJyBkZXNpZ25zIChhcHBseS5qcykuICovXG5leHBvcnQgY2xhc3MgQXBwbGllciB7XG4gIC8qKlxuICAgKiBCdWlsZHMgZGVzaWduIChhIGRlc2lnbi5EZXNpZ24gYXMgSlNPTikgd2l0aCB0aGUgb2JqZWN0cyB0aGUgY2FsbGVyIGhvbGRzXG4gICAqIGJ5IG5hbWUuXG4gICAqXG4gICAqIEByZXR1cm5zIHdoYXQgdGhlIGRlc2lnbiBtYWRlLCBieSBuYW1lLCBhbmQgd2hhdCBpdCByZWFkIChhXG4gICAqIGRlc2lnbi5BbnN3ZXIgYXMgSlNPTikgYXMgXCJhbnN3ZXJcIi5cbiAgICovXG4gIHB1YmxpYyBzdGF0aWMgYXBwbHkoZGVzaWduOiBzdHJpbmcsIG9iamVjdHM6IHsgW25hbWU6IHN0cmluZ106IGFueSB9KTogeyBbbmFtZTogc3RyaW5nXTogYW55IH0ge1xuICAgIHJldHVybiBhcHBsaWVyLmFwcGx5VGV4dChkZXNpZ24sIG9iamVjdHMpO1xuICB9XG5cbiAgcHJpdmF0ZSBjb25zdHJ1Y3RvcigpIHt9XG59XG4iXX0=