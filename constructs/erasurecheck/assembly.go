package erasurecheck

import (
	"github.com/linn-cloud/erasure-channel/constructs/accessmodel"
	"github.com/linn-cloud/erasure-channel/constructs/cfnmodel"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
)

// assembly is the template model of what the check reads, with what the
// rules cache over it.
type assembly struct {
	*cfnmodel.Assembly
	roleStmts map[string][]statement            // roleStatements, once per role
	roles     map[string]*accessmodel.Principal // appRole, once per role
	readers   *readerIndex                      // the app's possible queue readers, once (readerIndexOf)
	// eventSources are the app's event sources by the source they name, once
	// a resolution (eventSourcesOf).
	eventSources *eventSourceIndex
	// sizes are the resource policies' sizes (policySize), once per
	// resource: the quota rule and the quota uses both ask for each.
	sizes map[cfnmodel.ResourceID]policySized
	// access is the request context of every call the check asks of the
	// evaluator, built once (context) and completed by setOrganisation.
	access *accessmodel.Context
	// responseQueue is the channel's response queue, found once
	// (channelResponseQueue): every store's wiring asks for it.
	responseQueue *cfnmodel.ResourceID
	// boundaries are Config.Boundaries: permissions boundaries' documents.
	boundaries map[string]any
	// policyIndexes are which resource policies name which resources, by
	// template and policy types (policiesNaming), once a resolution.
	policyIndexes map[policyIndexKey]*policyIndex
}

// context is the request context of the check's calls: the app's region,
// and the organisation the channel admits ("" id for a channel that names
// its roster's accounts instead) with every account of the app in it.
func (a *assembly) context() *accessmodel.Context {
	if a.access != nil {
		return a.access
	}
	org := accessmodel.Organisation{Accounts: map[string]bool{}}
	for _, t := range a.Templates {
		if t.Account != "" {
			org.Accounts[t.Account] = true
		}
		for _, id := range t.IDsOf("AWS::SQS::Queue") {
			if o, ok := t.Resources[id].Metadata[OrganizationMetadataKey].(string); ok && org.ID == "" {
				org.ID = o
			}
		}
	}
	a.access = &accessmodel.Context{Region: a.Region(), Organisation: org}
	return a.access
}

// policySized is what policySize found for a resource.
type policySized struct {
	size  int
	stmts []iameval.Statement
	ok    bool
}
