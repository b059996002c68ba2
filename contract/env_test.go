package contract

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func lookupFrom(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func goodEnv(c Constants) map[string]string {
	return map[string]string{
		EnvPassTwoDelaySeconds: strconv.Itoa(c.PassTwoDelayCapSeconds),
		EnvBatchTimeoutSeconds: strconv.Itoa(c.BatchTimeoutCapSeconds),
		EnvSubscriber:          "space",
		EnvResponseQueueURL:    "https://sqs.eu-west-1.amazonaws.com/111122223333/erasure-responses",
		EnvQueueURL:            "https://sqs.eu-west-1.amazonaws.com/444455556666/space-erasure",
		EnvHandlerRoleID:       "AROAEXAMPLEROLEID0001",
	}
}

func TestLoadHandlerEnvironmentAtTheCaps(t *testing.T) {
	c := Channel()
	env, err := LoadHandlerEnvironment(lookupFrom(goodEnv(c)), c)
	if err != nil {
		t.Fatal(err)
	}
	if env.PassTwoDelay != c.PassTwoDelayCap() || env.BatchTimeout != c.BatchTimeoutCap() || env.Subscriber != "space" {
		t.Fatalf("env = %+v", env)
	}
}

func TestLoadHandlerEnvironmentRefusals(t *testing.T) {
	c := Channel()
	over := func(n int) string { return strconv.Itoa(n + 1) }
	for _, tc := range []struct {
		name, variable, value string
		unset                 bool
	}{
		{"pass two past X", EnvPassTwoDelaySeconds, over(c.PassTwoDelayCapSeconds), false},
		{"batch past b", EnvBatchTimeoutSeconds, over(c.BatchTimeoutCapSeconds), false},
		{"batch zero", EnvBatchTimeoutSeconds, "0", false},
		{"pass two negative", EnvPassTwoDelaySeconds, "-1", false},
		{"pass two decimal", EnvPassTwoDelaySeconds, "1.5", false},
		{"pass two with unit", EnvPassTwoDelaySeconds, "30s", false},
		{"pass two spaces", EnvPassTwoDelaySeconds, " 30", false},
		{"batch missing", EnvBatchTimeoutSeconds, "", true},
		{"pass two empty", EnvPassTwoDelaySeconds, "", false},
		{"subscriber bad", EnvSubscriber, "Space Store", false},
		{"subscriber missing", EnvSubscriber, "", true},
		{"response queue not a URL", EnvResponseQueueURL, "erasure-responses", false},
		{"own queue missing", EnvQueueURL, "", true},
		{"role id missing", EnvHandlerRoleID, "", true},
		{"role id of a user", EnvHandlerRoleID, "AIDAEXAMPLEUSERID0001", true},
		{"role id with a colon", EnvHandlerRoleID, "AROAEXAMPLE:ROLEID0001", true},
		{"role id in lower case", EnvHandlerRoleID, "AROAexampleroleid0001", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := goodEnv(c)
			if tc.unset {
				delete(m, tc.variable)
			} else {
				m[tc.variable] = tc.value
			}
			_, err := LoadHandlerEnvironment(lookupFrom(m), c)
			var ee *EnvError
			if !errors.As(err, &ee) || !ee.Has(tc.variable) || len(ee.Problems) != 1 {
				t.Fatalf("err = %v, want one problem naming %s", err, tc.variable)
			}
			if tc.value != "" && strings.Contains(err.Error(), tc.value) && !strings.Contains(tc.variable, tc.value) {
				t.Fatalf("error %q echoes the value", err)
			}
		})
	}
}

// TestBatchTimeoutNeverPastT: with constants where b were above T, the
// environment still refuses a batch timeout past T.
func TestBatchTimeoutNeverPastT(t *testing.T) {
	c := Channel()
	c.BatchTimeoutCapSeconds = c.HandlerTimeoutCapSeconds + 30 // a hypothetical bad file
	m := goodEnv(c)
	m[EnvBatchTimeoutSeconds] = strconv.Itoa(c.HandlerTimeoutCapSeconds + 1)
	_, err := LoadHandlerEnvironment(lookupFrom(m), c)
	var ee *EnvError
	if !errors.As(err, &ee) || !ee.Has(EnvBatchTimeoutSeconds) || !strings.Contains(err.Error(), "handlerTimeoutCapSeconds") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadHandlerEnvironmentReportsEveryProblem(t *testing.T) {
	_, err := LoadHandlerEnvironment(lookupFrom(nil), Channel())
	var ee *EnvError
	if !errors.As(err, &ee) || len(ee.Problems) != len(HandlerEnvironmentVariables) {
		t.Fatalf("err = %v, want a problem per variable", err)
	}
}
