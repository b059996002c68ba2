package plan

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/contract"
)

// answer plays the applier: what each operation of a step returns as plan
// reads it (a read's strings, a stack's account and region, a function's role).
func answer(ops []map[string]any) []any {
	out := make([]any, len(ops))
	for i, op := range ops {
		switch op["op"] {
		case "stackEnv":
			out[i] = map[string]any{"account": "111111111111", "region": "eu-west-1"}
		case "read":
			m := map[string]any{}
			for _, n := range op["names"].([]any) {
				m[n.(string)] = "${Token[" + n.(string) + "." + string(rune('0'+i)) + "]}"
			}
			out[i] = m
		case "functionRole":
			out[i] = map[string]any{"roleArn": "${Token[fnrole.arn]}", "roleId": "${Token[fnrole.id]}"}
		}
	}
	return out
}

// run steps in to its end: every step's operations, and the last step.
func run(t *testing.T, in SubscriberInput) ([][]map[string]any, SubscriberStep) {
	t.Helper()
	var steps [][]map[string]any
	for range 5 {
		st := Subscriber(in)
		steps = append(steps, st.Ops)
		if st.Final {
			return steps, st
		}
		in.Answers = append(in.Answers, answer(st.Ops))
	}
	t.Fatal("the plan did not end in 5 steps")
	return nil, SubscriberStep{}
}

func base() SubscriberInput {
	return SubscriberInput{
		ID: "ErasureSubscriber", Name: "space", Partition: "${Token[AWS.Partition.1]}",
		Topic:         &TopicFacts{Arn: "${Token[topic.arn]}", StackRegion: "eu-west-1", RestrictsSqsDecryption: true},
		ResponseQueue: &ResponseQueueFacts{URL: "${Token[rq.url]}", HasKey: true, InApp: true},
		HandlerProps:  &HandlerPropsFacts{},
	}
}

// TestSubscriberSteps: the steps each way of giving the handler takes, what
// each names, and that a step's operations are plain data (JSON and back,
// unchanged), as the WebAssembly module hands them over.
func TestSubscriberSteps(t *testing.T) {
	id := "${Token[given.id]}"
	cases := []struct {
		name  string
		edit  func(*SubscriberInput)
		steps int
		has   []string // names some operation makes
	}{
		{"own role and log group", func(*SubscriberInput) {}, 2, []string{NameThis, NameKey, NameQueue, NameDeadLetterQueue, NameLogGroup, NameRole, NameFunction}},
		{"a given role", func(in *SubscriberInput) { in.HandlerProps.Role = &RoleFacts{Arn: "arn:aws:iam::1:role/r", ID: &id} }, 2, []string{NameFunction}},
		{"a given log group: CDK makes the role", func(in *SubscriberInput) { in.HandlerProps.LogGroup = true }, 3, []string{NameFunction}},
		{"a given function", func(in *SubscriberInput) {
			in.HandlerProps, in.Handler = nil, &HandlerFacts{Role: &RoleFacts{Arn: "r", ID: &id}}
		}, 2, []string{NameQueue}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := base()
			c.edit(&in)
			steps, last := run(t, in)
			if len(steps) != c.steps {
				t.Errorf("%d steps, want %d", len(steps), c.steps)
			}
			made := map[string]bool{}
			for _, ops := range steps {
				for _, op := range ops {
					if as, ok := op["as"].(string); ok {
						made[as] = true
					}
				}
				b, err := json.Marshal(ops)
				if err != nil {
					t.Fatal(err)
				}
				var back []map[string]any
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatal(err)
				}
				if b2, _ := json.Marshal(back); string(b2) != string(b) {
					t.Error("a step's operations do not survive JSON")
				}
			}
			for _, n := range c.has {
				if !made[n] {
					t.Errorf("nothing makes %q", n)
				}
			}
			if len(last.Problems) != 0 {
				t.Errorf("problems: %v", last.Problems)
			}
			if last.HandlerRoleID == "" {
				t.Error("no handler role id")
			}
		})
	}
}

// TestSubscriberIsAFunctionOfItsInput: the same input gives the same steps,
// in the same order (a template must not change between two synths).
func TestSubscriberIsAFunctionOfItsInput(t *testing.T) {
	a, _ := run(t, base())
	b, _ := run(t, base())
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs of one input planned differently")
	}
}

// TestRefusedSubscriberStillBuilds: props past the caps are listed, all of
// them, and the resources are planned with the safe defaults so that CDK's
// own range checks never pre-empt the list.
func TestRefusedSubscriberStillBuilds(t *testing.T) {
	c := contract.Channel()
	in := base()
	in.Name = "Bad_Name"
	in.HandlerTimeout = &DurationFact{Millis: float64(c.HandlerTimeoutCapSeconds+1) * 1000}
	in.MaxReceiveCount = &NumberFact{Value: float64(c.MaxReceiveCount + 1)}
	in.BatchSize = &NumberFact{Unresolved: true}
	steps, last := run(t, in)
	want := []string{".name: Invalid", ".batchSize: UnresolvedToken", ".handlerTimeout: AboveCap", ".maxReceiveCount: AboveCap"}
	if len(last.Problems) != len(want) {
		t.Fatalf("problems %v, want %d", last.Problems, len(want))
	}
	for i, w := range want {
		if !strings.Contains(last.Problems[i], w) {
			t.Errorf("problem %d is %q, want %q", i, last.Problems[i], w)
		}
	}
	queue := steps[0][4]["props"].(map[string]any)
	if queue["visibilityTimeout"].(map[string]any)["$duration"].(map[string]any)["seconds"] != c.VisibilityTimeoutCapSeconds {
		t.Errorf("the refused store's queue is not built with the safe defaults: %v", queue["visibilityTimeout"])
	}
	if _, named := queue["queueName"]; named {
		t.Error("a queue is named after an invalid subscriber name")
	}
}

// BenchmarkSubscriberStep is one store's two steps as the WebAssembly
// module serves them: the input decoded from JSON, the plan, its operations
// encoded (the TypeScript construct's cost per store, before the hand-over),
// with the step's own encoder and, side by side, with encoding/json's.
func BenchmarkSubscriberStep(b *testing.B) {
	first := base()
	raw1, _ := json.Marshal(first)
	first.Answers = [][]any{answer(Subscriber(first).Ops)}
	raw2, _ := json.Marshal(first)
	type plain SubscriberStep // encoding/json's reflection
	for _, enc := range []struct {
		name   string
		encode func(SubscriberStep) ([]byte, error)
	}{
		{"own", SubscriberStep.MarshalJSON},
		{"encoding-json", func(s SubscriberStep) ([]byte, error) { return json.Marshal(plain(s)) }},
	} {
		b.Run(enc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, raw := range [][]byte{raw1, raw2} {
					var in SubscriberInput
					if err := json.Unmarshal(raw, &in); err != nil {
						b.Fatal(err)
					}
					if _, err := enc.encode(Subscriber(in)); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestStepJSONIsEncodingJSONs: the step's own encoder writes what
// encoding/json writes for the same value, for names that need escapes too.
func TestStepJSONIsEncodingJSONs(t *testing.T) {
	for _, name := range []string{"space", "Bad \"name\"\n<&>", "caf\u00e9\xff", ""} {
		in := base()
		in.Name = name
		in.Answers = [][]any{answer(Subscriber(in).Ops)}
		in.Administrators = []string{"arn:aws:iam::1:role/a"}
		in.MaxReceiveCount = &NumberFact{Value: 2.5}
		st := Subscriber(in)
		got, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		type plain SubscriberStep
		want, _ := json.Marshal(plain(st))
		if string(got) != string(want) {
			t.Errorf("%q: the step encodes as\n%s\nwant\n%s", name, got, want)
		}
	}
}

// TestIsToken: CDK's string token encodings, and near misses.
func TestIsToken(t *testing.T) {
	for s, want := range map[string]bool{
		"${Token[TOKEN.123]}": true, "arn:${Token[AWS.Partition.9]}:iam": true, "#{Token[x_1.2]}": true,
		"": false, "${Token[]}": false, "${Token[a b]}": false, "${Token[abc]": false, "{Token[abc]}": false,
		"$Token[abc]}": false, "plain": false, "${Token[abc]}x${": true, "$${Token[a]}": true,
	} {
		if got := IsToken(s); got != want {
			t.Errorf("IsToken(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzIsToken holds the matcher to the regular expression it replaced.
func FuzzIsToken(f *testing.F) {
	re := regexp.MustCompile(`[$#]\{Token\[[\w.]+\]\}`)
	for _, s := range []string{"${Token[TOKEN.1]}", "#{Token[a]}", "${Token[", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if IsToken(s) != re.MatchString(s) {
			t.Errorf("IsToken(%q) = %v, the expression says %v", s, IsToken(s), re.MatchString(s))
		}
	})
}
