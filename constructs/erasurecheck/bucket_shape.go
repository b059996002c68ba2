package erasurecheck

import (
	"github.com/linn-cloud/erasure-channel/constructs/bucketrule"
	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// BucketShape is a bitmap store bucket's shape (bucketrule.Shape).
type BucketShape = bucketrule.Shape

// BucketShapeOf reads a bucket's shape from its properties (bucketrule.ShapeOf).
func BucketShapeOf(props map[string]any) BucketShape { return bucketrule.ShapeOf(props) }

// CheckBitmapBucket is the bitmap store's bucket rule (bucketrule.Check),
// which BitmapStoreBucket applies to its props and the check to templates.
func CheckBitmapBucket(s BucketShape, prefix string, c contract.Constants, path problem.Path) problem.List {
	return bucketrule.Check(s, prefix, c, path)
}

// The bucket rule's readers of a bucket's properties.
var (
	field      = bucketrule.Field
	rulePrefix = bucketrule.RulePrefix
	enabled    = bucketrule.Enabled
	covers     = bucketrule.Covers
)
