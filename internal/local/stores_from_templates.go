package local

import "github.com/linn-cloud/erasure-channel/constructs/erasurecheck"

// TemplateStore is one store as a synthesized template deploys it.
type TemplateStore = erasurecheck.Store

// TemplateBitmapBucket is a bitmap store's bucket as the template deploys it.
type TemplateBitmapBucket = erasurecheck.BitmapBucket

// StoresFromTemplates reads every store subscribed to the erasure topic out of
// the templates in a cloud assembly directory (cdk.out), with the app-wide
// check's reader: what runs locally is then what would be deployed.
func StoresFromTemplates(dir string) ([]TemplateStore, error) { return erasurecheck.ReadStores(dir) }
