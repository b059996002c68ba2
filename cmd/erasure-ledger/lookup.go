package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/linn-cloud/erasure-channel/contract"
	"github.com/linn-cloud/erasure-channel/contract/ledger"
)

// awsRoleIDs resolves a store's handler role id with IAM's GetRole: in the
// ledger's own account directly, in a store's account through the lookup
// role the store's stack created (contract.RosterLookupRoleARN), whose one
// permission is iam:GetRole on the store's handler role.
type awsRoleIDs struct {
	cfg       aws.Config
	partition string
}

func (a *awsRoleIDs) HandlerRoleID(ctx context.Context, store, account string) (string, error) {
	cfg := a.cfg.Copy()
	if account != "" {
		provider := stscreds.NewAssumeRoleProvider(sts.NewFromConfig(a.cfg), contract.RosterLookupRoleARN(a.partition, account, store),
			func(o *stscreds.AssumeRoleOptions) { o.RoleSessionName = contract.LedgerReaderRoleName })
		cfg.Credentials = aws.NewCredentialsCache(provider)
	}
	out, err := iam.NewFromConfig(cfg).GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(contract.HandlerName(store))})
	var missing *iamtypes.NoSuchEntityException
	switch {
	case errors.As(err, &missing), isAccessDenied(err):
		// No lookup role (the store has not deployed) or no handler role.
		return "", fmt.Errorf("%w in its account", ledger.ErrNoHandlerRole)
	case err != nil:
		return "", fmt.Errorf("the store's handler role: %w", err)
	}
	// Exactly the store's handler role: its name, under the handler path, in
	// the roster's account for it.
	arn := aws.ToString(out.Role.Arn)
	if account != "" && arn != contract.HandlerRoleARN(a.partition, account, store) ||
		account == "" && !strings.HasSuffix(arn, ":role"+contract.HandlerRolePath+contract.HandlerName(store)) {
		return "", fmt.Errorf("%w under the handler path", ledger.ErrNoHandlerRole)
	}
	return aws.ToString(out.Role.RoleId), nil
}

// isAccessDenied: STS refuses to assume a lookup role that does not exist
// (or does not trust the reader) with AccessDenied.
func isAccessDenied(err error) bool {
	var api interface{ ErrorCode() string }
	return errors.As(err, &api) && (api.ErrorCode() == "AccessDenied" || api.ErrorCode() == "AccessDeniedException")
}

// partitionOf is an ARN's partition ("aws" when it has none).
func partitionOf(arn string) string {
	if f := strings.SplitN(arn, ":", 3); len(f) == 3 && f[1] != "" {
		return f[1]
	}
	return "aws"
}
