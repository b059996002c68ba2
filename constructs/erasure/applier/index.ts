// The applier's face to the jsii kernel: the Go constructs call
// Applier.apply (constructs/erasure/applier.go). The jsii compiler makes
// this package's assembly (.jsii) and index.js from this file: `make
// applier` writes them, TestApplierIsTheJsiiCompilersOutput holds the
// committed ones to a fresh compile, and the Go module embeds them, so that
// `go get` needs no Node build.

// eslint-disable-next-line @typescript-eslint/no-require-imports
const applier: { applyText(design: string, objects: { [name: string]: unknown }): { [name: string]: unknown } } = require('./apply.js');

/** Applies the erasure constructs' designs (apply.js). */
export class Applier {
  /**
   * Builds design (a design.Design as JSON) with the objects the caller holds
   * by name.
   *
   * @returns what the design made, by name, and what it read (a
   * design.Answer as JSON) as "answer".
   */
  public static apply(design: string, objects: { [name: string]: any }): { [name: string]: any } {
    return applier.applyText(design, objects);
  }

  private constructor() {}
}
