package channelpolicy

import (
	"slices"
	"strings"
	"testing"
)

// TestAdministratorNeeds: every kind the channel locks is managed by types
// whose handler permissions are declared with their source, and a gated
// permission is needed only where the resource's properties ask for it.
func TestAdministratorNeeds(t *testing.T) {
	for kind, types := range ManagedBy {
		if _, known := AdministratorNeeds(kind, "any:Action", nil); !known {
			t.Errorf("%s: a managing type of %v has no handler permissions", kind, types)
		}
	}
	for typ, h := range HandlerPermissions {
		if h.Source == "" || len(h.Actions) == 0 {
			t.Errorf("%s: no source or no actions", typ)
		}
		for _, a := range h.Actions {
			if a != strings.ToLower(a[:strings.IndexByte(a, ':')])+a[strings.IndexByte(a, ':'):] {
				t.Errorf("%s: %s: the service prefix is written in lower case everywhere else", typ, a)
			}
		}
		for a := range h.Gates {
			if !slices.Contains(h.Actions, a) {
				t.Errorf("%s: gate on %s, which is not a handler permission", typ, a)
			}
		}
	}
	for _, tc := range []struct {
		name  string
		props map[string]any
		want  map[string]bool
	}{
		{"unknown key", nil, map[string]bool{"kms:DisableKey": true, "kms:DisableKeyRotation": true, "kms:PutKeyPolicy": true}},
		{"key as CDK writes it", map[string]any{"EnableKeyRotation": true},
			map[string]bool{"kms:DisableKey": false, "kms:DisableKeyRotation": false, "kms:PutKeyPolicy": true}},
		{"key without rotation", map[string]any{}, map[string]bool{"kms:DisableKey": false, "kms:DisableKeyRotation": true}},
		{"disabled key", map[string]any{"Enabled": "false", "EnableKeyRotation": true}, map[string]bool{"kms:DisableKey": true}},
		{"enabled by a parameter", map[string]any{"Enabled": map[string]any{"Ref": "On"}}, map[string]bool{"kms:DisableKey": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for a, want := range tc.want {
				got, known := AdministratorNeeds(ResponseKey, a, &Resource{Properties: tc.props})
				if !known {
					t.Fatal("the key's handlers are not declared")
				}
				if got != want {
					t.Errorf("%s needed: %v, want %v", a, got, want)
				}
			}
			if got, _ := AdministratorNeeds(ResponseKey, "kms:CreateGrant", &Resource{Properties: tc.props}); got {
				t.Error("kms:CreateGrant is no handler permission of AWS::KMS::Key")
			}
			if got, _ := AdministratorNeeds(ResponseKey, "kms:ScheduleKeyDeletion", &Resource{Properties: tc.props}); !got {
				t.Error("kms:ScheduleKeyDeletion is the key's delete handler's")
			}
		})
	}
}

// TestDeleteHandlersOnRetainedResources: a delete handler's own permission
// is needed unless CloudFormation can never delete the resource (both its
// DeletionPolicy and its UpdateReplacePolicy Retain), for each type's; one
// the other handlers call too stays needed.
func TestDeleteHandlersOnRetainedResources(t *testing.T) {
	for typ, h := range HandlerPermissions {
		for _, a := range h.DeleteOnly {
			if !slices.Contains(h.Actions, a) {
				t.Errorf("%s: %s is delete-only but no handler permission", typ, a)
			}
		}
	}
	for _, tc := range []struct {
		kind     Kind
		action   string
		del, upd string
		want     bool
	}{
		{ResponseKey, "kms:ScheduleKeyDeletion", "Retain", "Retain", false},
		{ResponseKey, "kms:ScheduleKeyDeletion", "Retain", "", true},
		{ResponseKey, "kms:ScheduleKeyDeletion", "", "Retain", true},
		{ResponseKey, "kms:ScheduleKeyDeletion", "RetainExceptOnCreate", "Retain", true},
		{ResponseKey, "kms:ScheduleKeyDeletion", "Delete", "Delete", true},
		{ResponseKey, "kms:DescribeKey", "Retain", "Retain", true},
		{Queue, "sqs:DeleteQueue", "Retain", "Retain", false},
		{Queue, "sqs:DeleteQueue", "Delete", "Retain", true},
		{Queue, "sqs:SetQueueAttributes", "Retain", "Retain", true},
		{Topic, "sns:DeleteTopic", "Retain", "Retain", false},
		{Bucket, "s3:DeleteBucket", "Retain", "Retain", false},
		{Bucket, "s3:DeleteBucketPolicy", "Retain", "Retain", true},
	} {
		got, _ := AdministratorNeeds(tc.kind, tc.action, &Resource{Properties: map[string]any{}, DeletionPolicy: tc.del, UpdateReplacePolicy: tc.upd})
		if got != tc.want {
			t.Errorf("%s %s with DeletionPolicy %q, UpdateReplacePolicy %q: needed %v, want %v", tc.kind, tc.action, tc.del, tc.upd, got, tc.want)
		}
	}
	if got, _ := AdministratorNeeds(ResponseKey, "kms:ScheduleKeyDeletion", nil); !got {
		t.Error("a key of unknown policies: its deletion is not needed")
	}
}
