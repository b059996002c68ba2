"use strict";
var _a;
Object.defineProperty(exports, "__esModule", { value: true });
exports.Handover = void 0;
const JSII_RTTI_SYMBOL_1 = Symbol.for("jsii.rtti");
// The applier's face to the jsii kernel: the Go constructs call
// Handover.apply (constructs/erasure/handover.go). The jsii compiler makes
// this package's assembly (.jsii) and index.js from this file: `make
// handover` writes them, TestHandoverIsTheJsiiCompilersOutput holds the
// committed ones to a fresh compile, and the Go module embeds them, so that
// `go get` needs no Node build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const applier = require('./apply.js');
/** Applies the erasure constructs' designs (apply.js). */
class Handover {
    /**
     * Builds design (a design.Design as JSON) with the objects the caller holds
     * by name.
     *
     * @returns what the design made, by name, and what it read (an
     * design.Answer as JSON) as "answer".
     */
    static apply(design, objects) {
        return applier.applyText(design, objects);
    }
    constructor() { }
}
exports.Handover = Handover;
_a = JSII_RTTI_SYMBOL_1;
Handover[_a] = { fqn: "erasure-channel-handover.Handover", version: "2.0.0" };
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiaW5kZXguanMiLCJzb3VyY2VSb290IjoiIiwic291cmNlcyI6WyJpbmRleC50cyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiOzs7OztBQUFBLGdFQUFnRTtBQUNoRSwyRUFBMkU7QUFDM0UscUVBQXFFO0FBQ3JFLHdFQUF3RTtBQUN4RSw0RUFBNEU7QUFDNUUsZ0NBQWdDO0FBRWhDLGlFQUFpRTtBQUNqRSxNQUFNLE9BQU8sR0FBcUcsT0FBTyxDQUFDLFlBQVksQ0FBQyxDQUFDO0FBRXhJLDBEQUEwRDtBQUMxRCxNQUFhLFFBQVE7SUFDbkI7Ozs7OztPQU1HO0lBQ0ksTUFBTSxDQUFDLEtBQUssQ0FBQyxNQUFjLEVBQUUsT0FBZ0M7UUFDbEUsT0FBTyxPQUFPLENBQUMsU0FBUyxDQUFDLE1BQU0sRUFBRSxPQUFPLENBQUMsQ0FBQztJQUM1QyxDQUFDO0lBRUQsZ0JBQXVCLENBQUM7O0FBWjFCLDRCQWFDIiwic291cmNlc0NvbnRlbnQiOlsiLy8gVGhlIGFwcGxpZXIncyBmYWNlIHRvIHRoZSBqc2lpIGtlcm5lbDogdGhlIEdvIGNvbnN0cnVjdHMgY2FsbFxuLy8gSGFuZG92ZXIuYXBwbHkgKGNvbnN0cnVjdHMvZXJhc3VyZS9oYW5kb3Zlci5nbykuIFRoZSBqc2lpIGNvbXBpbGVyIG1ha2VzXG4vLyB0aGlzIHBhY2thZ2UncyBhc3NlbWJseSAoLmpzaWkpIGFuZCBpbmRleC5qcyBmcm9tIHRoaXMgZmlsZTogYG1ha2Vcbi8vIGhhbmRvdmVyYCB3cml0ZXMgdGhlbSwgVGVzdEhhbmRvdmVySXNUaGVKc2lpQ29tcGlsZXJzT3V0cHV0IGhvbGRzIHRoZVxuLy8gY29tbWl0dGVkIG9uZXMgdG8gYSBmcmVzaCBjb21waWxlLCBhbmQgdGhlIEdvIG1vZHVsZSBlbWJlZHMgdGhlbSwgc28gdGhhdFxuLy8gYGdvIGdldGAgbmVlZHMgbm8gTm9kZSBidWlsZC5cblxuLy8gZXNsaW50LWRpc2FibGUtbmV4dC1saW5lIEB0eXBlc2NyaXB0LWVzbGludC9uby1yZXF1aXJlLWltcG9ydHNcbmNvbnN0IGFwcGxpZXI6IHsgYXBwbHlUZXh0KGRlc2lnbjogc3RyaW5nLCBvYmplY3RzOiB7IFtuYW1lOiBzdHJpbmddOiB1bmtub3duIH0pOiB7IFtuYW1lOiBzdHJpbmddOiB1bmtub3duIH0gfSA9IHJlcXVpcmUoJy4vYXBwbHkuanMnKTtcblxuLyoqIEFwcGxpZXMgdGhlIGVyYXN1cmUgY29uc3RydWN0cycgZGVzaWducyAoYXBwbHkuanMpLiAqL1xuZXhwb3J0IGNsYXNzIEhhbmRvdmVyIHtcbiAgLyoqXG4gICAqIEJ1aWxkcyBkZXNpZ24gKGEgZGVzaWduLkRlc2lnbiBhcyBKU09OKSB3aXRoIHRoZSBvYmplY3RzIHRoZSBjYWxsZXIgaG9sZHNcbiAgICogYnkgbmFtZS5cbiAgICpcbiAgICogQHJldHVybnMgd2hhdCB0aGUgZGVzaWduIG1hZGUsIGJ5IG5hbWUsIGFuZCB3aGF0IGl0IHJlYWQgKGFuXG4gICAqIGRlc2lnbi5BbnN3ZXIgYXMgSlNPTikgYXMgXCJhbnN3ZXJcIi5cbiAgICovXG4gIHB1YmxpYyBzdGF0aWMgYXBwbHkoZGVzaWduOiBzdHJpbmcsIG9iamVjdHM6IHsgW25hbWU6IHN0cmluZ106IGFueSB9KTogeyBbbmFtZTogc3RyaW5nXTogYW55IH0ge1xuICAgIHJldHVybiBhcHBsaWVyLmFwcGx5VGV4dChkZXNpZ24sIG9iamVjdHMpO1xuICB9XG5cbiAgcHJpdmF0ZSBjb25zdHJ1Y3RvcigpIHt9XG59XG4iXX0=