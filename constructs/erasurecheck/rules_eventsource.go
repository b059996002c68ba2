package erasurecheck

import (
	"fmt"
	"strings"

	"github.com/linn-cloud/erasure-channel/contract/problem"
)

// The event source family: each AWS::Lambda::EventSourceMapping on a store's
// queue.
var (
	ruleEventSourceFilter = declare(Rule{ID: "EC302", Name: "EventSourceFilter", Type: problem.BreaksErasure, Source: FromAWS, Reference: "https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html",
		Title: "The event source does not filter records",
		Why:   "Lambda deletes every record its filter does not match: the request is gone, unanswered.",
		Fix:   "Remove FilterCriteria; answer NOT_APPLICABLE from the handler instead."})
	ruleStreamOnlySetting = declare(Rule{ID: "EC303", Name: "StreamOnlySetting", Type: problem.Invalid, Source: FromAWS, Reference: "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-lambda-eventsourcemapping.html",
		Title: "The event source sets nothing that applies only to streams and Kafka",
		Why:   "Lambda rejects StartingPosition, ParallelizationFactor, BisectBatchOnFunctionError, MaximumRetryAttempts, MaximumRecordAgeInSeconds and TumblingWindowInSeconds on an SQS event source at deploy (InvalidParameterValueException).",
		Fix:   "Remove the setting."})
	rulePartialBatchResponse = declare(Rule{ID: "EC304", Name: "PartialBatchResponse", Type: problem.Missing, Source: FromSeed, Reference: "seed: a request is answered once per pass",
		Title: "The event source reports partial batch failures",
		Why:   "Without ReportBatchItemFailures one failed record retries the whole batch, and the others are handled and answered twice.",
		Fix:   "Set FunctionResponseTypes: [ReportBatchItemFailures] (ErasureSubscriber does)."})
	ruleEventSourceDisabled = declare(Rule{ID: "EC305", Name: "EventSourceEnabled", Type: problem.BreaksErasure, Source: FromSeed, Reference: "expiryPeriodSeconds (R)",
		Title: "The event source is enabled",
		Why:   "A disabled event source reads nothing: requests wait unread until they expire.",
		Fix:   "Remove Enabled: false."})
)

// eventSourceFamily judges each reader's event source.
var eventSourceFamily = storeFamily{name: "event source", rules: []*Rule{ruleEventSourceFilter, ruleStreamOnlySetting, rulePartialBatchResponse, ruleEventSourceDisabled}, check: func(a *assembly, sc *storeCheck) {
	s, f := sc.store, &sc.f
	for _, r := range sc.readers {
		if r.esm["FilterCriteria"] != nil {
			f.add(ruleEventSourceFilter, r.esmID, s.Path.Child("eventSource").Child("filterCriteria"), props("FilterCriteria"), "the event source of function %s filters records: Lambda deletes every request its filter does not match, unanswered (like an SNS filter policy); remove it and answer NOT_APPLICABLE instead", r.fnID)
		}
		for _, p := range streamOnlyESMProperties {
			if _, ok := r.esm[p]; ok {
				f.add(ruleStreamOnlySetting, r.esmID, s.Path.Child("eventSource").Child(lowerFirst(p)), props(p), "%s applies to stream and Kafka event sources only: Lambda rejects it on an SQS event source at deploy (InvalidParameterValueException); remove it", p)
			}
		}
		if !strings.Contains(fmt.Sprint(r.esm["FunctionResponseTypes"]), "ReportBatchItemFailures") {
			f.add(rulePartialBatchResponse, r.esmID, s.Path.Child("reportBatchItemFailures"), props("FunctionResponseTypes"), "the event source of function %s does not report partial batch failures: one failed record retries the whole batch, answering others twice; set FunctionResponseTypes [ReportBatchItemFailures]", r.fnID)
		}
		if en := r.esm["Enabled"]; en != nil && a.Ident(r.et, en) == "false" {
			f.add(ruleEventSourceDisabled, r.esmID, s.Path.Child("eventSource"), props("Enabled"), "the event source of function %s is disabled: requests wait unread until they expire; enable it", r.fnID)
		}
	}
}}

// streamOnlyESMProperties are event source mapping settings Lambda accepts
// for streams (Kinesis, DynamoDB) and Kafka only, and rejects on SQS.
var streamOnlyESMProperties = []string{"StartingPosition", "StartingPositionTimestamp", "ParallelizationFactor",
	"BisectBatchOnFunctionError", "MaximumRetryAttempts", "MaximumRecordAgeInSeconds", "TumblingWindowInSeconds"}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
