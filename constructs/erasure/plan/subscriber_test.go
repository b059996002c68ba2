package plan

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/linn-cloud/erasure-channel/constructs/erasure/design"

	"github.com/linn-cloud/erasure-channel/contract"
)

// answer plays the applier: what a design's reads return (tokens for
// each queue's and role's attributes, a stack's account and region, a
// function's role).
func answer(d design.Design) design.Answer {
	a := design.Answer{Queues: map[design.Name]design.QueueAttributes{}, Roles: map[design.Name]design.RoleFacts{}, FunctionRoles: map[design.Name]*design.RoleFacts{}}
	if d.Reads == nil {
		return a
	}
	if d.Reads.Stack != "" {
		a.Account, a.Region = "111111111111", "eu-west-1"
	}
	for _, n := range d.Reads.Queues {
		a.Queues[n] = design.QueueAttributes{URL: "${Token[" + string(n) + ".url]}", Arn: "${Token[" + string(n) + ".arn]}"}
	}
	for _, n := range d.Reads.Roles {
		id := "${Token[" + string(n) + ".id]}"
		a.Roles[n] = design.RoleFacts{Arn: "${Token[" + string(n) + ".arn]}", ID: &id}
	}
	if d.Reads.Topic != "" {
		a.Topic = &design.TopicFacts{Arn: "${Token[topic.arn]}", StackRegion: "eu-west-1", RestrictsSqsDecryption: true}
	}
	if d.Reads.ResponseQueue != "" {
		a.ResponseQueue = &design.ResponseQueueFacts{URL: "${Token[rq.url]}", HasKey: true, InApp: true}
	}
	for _, n := range d.Reads.FunctionRoles {
		id := "${Token[fnrole.id]}"
		a.FunctionRoles[n] = &design.RoleFacts{Arn: "${Token[fnrole.arn]}", ID: &id}
	}
	return a
}

// run steps in to its end: every step's design, and the last step.
func run(t *testing.T, in SubscriberInput) ([]design.Design, SubscriberStep) {
	t.Helper()
	var steps []design.Design
	for range 5 {
		st := Subscriber(in)
		steps = append(steps, st.Design)
		if st.Final {
			return steps, st
		}
		a := answer(st.Design)
		if in.QueuesAnswer == nil {
			in.QueuesAnswer = &a
		} else {
			in.FunctionAnswer = &a
		}
	}
	t.Fatal("the plan did not end in 5 steps")
	return nil, SubscriberStep{}
}

func base() SubscriberInput {
	return SubscriberInput{
		ID: "ErasureSubscriber", Name: "space", Partition: "${Token[AWS.Partition.1]}",
		Topic:         &design.TopicFacts{Arn: "${Token[topic.arn]}", StackRegion: "eu-west-1", RestrictsSqsDecryption: true},
		ResponseQueue: &design.ResponseQueueFacts{URL: "${Token[rq.url]}", HasKey: true, InApp: true},
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
		has   []design.Name // names some design makes
	}{
		{"own role and log group", func(*SubscriberInput) {}, 2, []design.Name{design.NameThis, design.NameKey, design.NameQueue, design.NameDeadLetterQueue, design.NameLogGroup, design.NameRole, design.NameFunction}},
		{"a given role", func(in *SubscriberInput) {
			in.HandlerProps.Role = &design.RoleFacts{Arn: "arn:aws:iam::1:role/r", ID: &id}
		}, 2, []design.Name{design.NameFunction}},
		{"a given log group: CDK makes the role", func(in *SubscriberInput) { in.HandlerProps.LogGroup = true }, 3, []design.Name{design.NameFunction}},
		{"a given function", func(in *SubscriberInput) {
			in.HandlerProps, in.Handler = nil, &HandlerFacts{Role: &design.RoleFacts{Arn: "r", ID: &id}}
		}, 2, []design.Name{design.NameQueue}},
		{"the topic's and response queue's facts read by the first step", func(in *SubscriberInput) {
			in.Topic, in.ResponseQueue, in.HasTopic, in.HasResponseQueue = nil, nil, true, true
		}, 2, []design.Name{design.NameFunction}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := base()
			c.edit(&in)
			steps, last := run(t, in)
			if len(steps) != c.steps {
				t.Errorf("%d steps, want %d", len(steps), c.steps)
			}
			made := map[design.Name]bool{}
			for _, d := range steps {
				if d.Version != design.DesignVersion {
					t.Errorf("a design of version %d", d.Version)
				}
				if d.Scope != nil {
					made[d.Scope.As] = true
				}
				for _, k := range d.Keys {
					made[k.As] = true
				}
				for _, p := range d.QueuePairs {
					made[p.QueueAs], made[p.DeadLetterAs] = true, true
				}
				for _, g := range d.LogGroups {
					made[g.As] = true
				}
				for _, r := range d.Roles {
					made[r.As] = true
				}
				for _, f := range d.Functions {
					made[f.As] = true
				}
				b, err := json.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				var back design.Design
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatal(err)
				}
				if b2, _ := json.Marshal(back); string(b2) != string(b) {
					t.Errorf("a design does not survive JSON:\n%s\n%s", b, b2)
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
	queue := steps[0].QueuePairs[0]
	if queue.VisibilitySeconds != c.VisibilityTimeoutCapSeconds {
		t.Errorf("the refused store's queue is not built with the safe defaults: %d s", queue.VisibilitySeconds)
	}
	if queue.QueueName != "" {
		t.Error("a queue is named after an invalid subscriber name")
	}
}

// BenchmarkSubscriberStep is one store's two steps as the WebAssembly
// module serves them: the input decoded from JSON, the plan, its design
// encoded (the TypeScript construct's cost per store, before the applier runs).
func BenchmarkSubscriberStep(b *testing.B) {
	first := base()
	raw1, _ := json.Marshal(first)
	a := answer(Subscriber(first).Design)
	first.QueuesAnswer = &a
	raw2, _ := json.Marshal(first)
	b.ReportAllocs()
	for b.Loop() {
		for _, raw := range [][]byte{raw1, raw2} {
			var in SubscriberInput
			if err := json.Unmarshal(raw, &in); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(Subscriber(in)); err != nil {
				b.Fatal(err)
			}
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

// TestSharedFactsReadOnceAndUsed: a subscriber given its topic and response
// queue as objects asks the first step for their facts, and plans the
// same wiring it plans when the facts are given; their problems (a FIFO
// topic) are listed but do not change what the first step builds.
func TestSharedFactsReadOnceAndUsed(t *testing.T) {
	given := base()
	read := base()
	read.Topic, read.ResponseQueue, read.HasTopic, read.HasResponseQueue = nil, nil, true, true
	first := Subscriber(read).Design
	if first.Reads == nil || first.Reads.Topic != design.NameTopic || first.Reads.ResponseQueue != design.NameResponseQueue {
		t.Fatalf("the first step reads %+v, not the topic's and the response queue's facts", first.Reads)
	}
	if Subscriber(given).Design.Reads.Topic != "" {
		t.Error("facts the caller gave are read again")
	}
	a, b := func() []design.Design { s, _ := run(t, given); return s }(), func() []design.Design { s, _ := run(t, read); return s }()
	ja, _ := json.Marshal(a[1:])
	jb, _ := json.Marshal(b[1:])
	if string(ja) != string(jb) {
		t.Errorf("the wiring differs when the applier reads the facts:\n%s\n%s", ja, jb)
	}
	fifo := base()
	fifo.Topic.FIFO = true
	steps, last := run(t, fifo)
	if len(last.Problems) != 1 || !strings.Contains(last.Problems[0], ".topic: FIFO") {
		t.Errorf("problems %v, want the topic's FIFO", last.Problems)
	}
	ok, _ := run(t, base())
	if steps[0].QueuePairs[0] != ok[0].QueuePairs[0] {
		t.Error("a FIFO topic changed the store's queues")
	}
}
