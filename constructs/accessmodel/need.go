package accessmodel

import (
	"slices"
	"strings"

	"github.com/linn-cloud/erasure-channel/constructs/channelpolicy"
	"github.com/linn-cloud/erasure-channel/constructs/iameval"
	"github.com/linn-cloud/erasure-channel/contract"
)

// subscribesItsStoreQueue says whether e is a store queue
// (contract.QueueNamePrefix) of p's own account, over SQS, and p an
// administrator of the topic from a roster account: the one subscription the
// channel admits.
func (m *Matrix) subscribesItsStoreQueue(p *Principal, topic *Target, e *endpoint) bool {
	if e == nil || e.protocol != "sqs" || p.Service != "" || e.account != p.Account {
		return false
	}
	if len(m.decl.RosterAccounts) == 0 && m.ctx.Organisation.ID == "" {
		// A channel that names no roster accounts (an older template): a
		// roster store's own queue, by its administrators.
		return e.queue != nil && m.isAdmin(p, e.queue) && m.decl.Roster[e.queue.Store]
	}
	if !m.admitsAccount(p.Account) {
		return false
	}
	named := false
	for _, v := range e.values {
		f := strings.SplitN(v, ":", 6)
		named = named || len(f) == 6 && f[2] == "sqs" && strings.HasPrefix(f[5], contract.QueueNamePrefix)
	}
	if !named {
		return false
	}
	for _, adm := range topic.Admins {
		if iameval.CoversAny(adm, p.Aliases) {
			return true
		}
	}
	return e.queue != nil && m.isAdmin(p, e.queue)
}

// need is what the channel's path needs of one request.
func (m *Matrix) need(p *Principal, action string, t *Target, e *endpoint) iameval.Decision {
	yes := func(b bool) iameval.Decision {
		if b {
			return iameval.Allowed
		}
		return iameval.Denied
	}
	admin := m.isAdmin(p, t)
	if !slices.Contains(dataActions(t.Kind), action) {
		// Off the data path: the administrators keep what CloudFormation's
		// handlers need; the rest is theirs to harden (channelpolicy).
		if admin {
			if needed, known := channelpolicy.AdministratorNeeds(t.Kind, action, t.Gate); known && !needed {
				return Either
			}
		}
		return yes(admin)
	}
	handler := m.isHandler(p, t.Store)
	switch t.Kind {
	case channelpolicy.Topic:
		if action == "sns:Publish" {
			return yes(m.isDeclared(p, m.decl.Publishers))
		}
		// sns:Subscribe: a store queue of the subscriber's own account,
		// over SQS, by an administrator of a roster account.
		return yes(m.subscribesItsStoreQueue(p, t, e))
	case channelpolicy.TopicKey:
		return yes(m.isDeclared(p, m.decl.Publishers))
	case channelpolicy.Queue:
		switch action {
		case "sqs:SendMessage":
			return yes(p.Name == ErasureTopicSNS || handler)
		case "sqs:GetQueueAttributes":
			return yes(handler || admin)
		}
		return yes(handler)
	case channelpolicy.QueueKey:
		return yes(p.Name == ErasureTopicSNS || handler)
	case channelpolicy.DeadLetters:
		return yes(action != "sqs:SendMessage" && admin)
	case channelpolicy.ResponseQueue:
		switch action {
		case "sqs:SendMessage":
			return yes(m.isRosterHandler(p))
		case "sqs:GetQueueAttributes":
			return yes(m.isDeclared(p, m.decl.Readers) || admin)
		}
		return yes(m.isDeclared(p, m.decl.Readers))
	case channelpolicy.ResponseDLQ:
		return yes(action != "sqs:SendMessage" && (admin || m.isDeclared(p, m.decl.Readers)))
	case channelpolicy.ResponseKey:
		return yes(m.isRosterHandler(p) || m.isDeclared(p, m.decl.Readers))
	case channelpolicy.Bucket, channelpolicy.BucketObjects, channelpolicy.BucketKey:
		return yes(handler)
	case channelpolicy.BucketRows:
		// The registry's history stays for a restore: nobody reads or
		// deletes its versions.
		return yes(handler && !slices.Contains(channelpolicy.VersionData, action))
	case channelpolicy.BucketOutside:
		return iameval.Denied // the data path never leaves the store's prefix
	case channelpolicy.LedgerAnchor, channelpolicy.LedgerAnchorObjects:
		// The sweeper writes heads; it, the administrators and the
		// declared auditors read them.
		writer := m.isDeclaredPattern(p, t.Writers)
		if action == "s3:PutObject" {
			return yes(writer)
		}
		return yes(writer || admin || m.isDeclaredPattern(p, t.Readers))
	}
	return iameval.Denied
}

// isDeclaredPattern says whether p is named by one of the ARNs or ARN
// patterns of list.
func (m *Matrix) isDeclaredPattern(p *Principal, list []string) bool {
	if p.Service != "" {
		return false
	}
	for _, d := range list {
		if iameval.CoversAny(d, p.Aliases) {
			return true
		}
	}
	return false
}

// dataActions are a kind's data-path actions (channelpolicy).
func dataActions(k channelpolicy.Kind) []string {
	switch k {
	case channelpolicy.Topic:
		return channelpolicy.TopicData
	case channelpolicy.Queue, channelpolicy.DeadLetters, channelpolicy.ResponseQueue, channelpolicy.ResponseDLQ:
		return channelpolicy.QueueData
	case channelpolicy.Bucket:
		return channelpolicy.BucketList
	case channelpolicy.BucketObjects, channelpolicy.BucketRows, channelpolicy.BucketOutside:
		return channelpolicy.ObjectData
	case channelpolicy.LedgerAnchor:
		return channelpolicy.AnchorList
	case channelpolicy.LedgerAnchorObjects:
		return channelpolicy.AnchorData
	}
	return channelpolicy.KeyUse
}

// isAdministratorARN says whether arn is one of the declared administrators
// of some resource of account.
func (m *Matrix) isAdministratorARN(arn, account string) bool {
	for _, name := range m.order {
		t := m.targets[name]
		if t.Account != account {
			continue
		}
		for _, adm := range t.Admins {
			if iameval.GlobMatch(adm, arn) {
				return true
			}
		}
	}
	return false
}

// isAdmin says whether p administers t: one of t's administrator patterns
// names it, in t's own account.
func (m *Matrix) isAdmin(p *Principal, t *Target) bool {
	if p.Service != "" || p.Account != t.Account {
		return false
	}
	for _, adm := range t.Admins {
		if iameval.CoversAny(adm, p.Aliases) {
			return true
		}
	}
	return false
}

func (m *Matrix) isDeclared(p *Principal, list []string) bool {
	if p.Service != "" {
		return false
	}
	for _, d := range list {
		if slices.Contains(p.Aliases, d) {
			return true
		}
	}
	return false
}

func (m *Matrix) isHandler(p *Principal, store string) bool {
	h := m.handlers[store]
	return h != nil && p == h
}

func (m *Matrix) isRosterHandler(p *Principal) bool {
	for s := range m.decl.Roster {
		if m.isHandler(p, s) {
			return true
		}
	}
	return m.onHandlerPath(p)
}

// onHandlerPath says whether p is a role under the handler path
// (contract.HandlerRolePath) of a roster account: the channel's shared
// policies admit every such role, and the response reader authenticates each
// answer by its store's exact role id, refusing (and alarming on) the rest.
func (m *Matrix) onHandlerPath(p *Principal) bool {
	if p.Service != "" || !m.admitsAccount(p.Account) {
		return false
	}
	return iameval.CoversAny(contract.HandlerRolePattern("*", iameval.OrStar(p.Account)), p.Aliases)
}

// admitsAccount says whether the channel's shared policies admit the
// handler path of account: a roster account, or, for a channel that admits
// its organisation, any account of it but the channel's own without a store.
func (m *Matrix) admitsAccount(account string) bool {
	if m.decl.RosterAccounts[account] {
		return true
	}
	org := &m.ctx.Organisation
	return org.ID != "" && account != m.channelAccount && org.InOrganisation(account)
}
