package ledger

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/linn-cloud/erasure-channel/contract"
)

// fakeIAM is the store accounts' IAM as the lookup roles see it: each
// store's handler role id per account, "" while the store has not deployed.
type fakeIAM struct {
	mu    sync.Mutex
	ids   map[string]string // account/store → role id
	fail  error             // a passing failure, when set
	calls int
}

func (f *fakeIAM) HandlerRoleID(_ context.Context, store, account string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fail != nil {
		return "", f.fail
	}
	id := f.ids[account+"/"+store]
	if id == "" {
		return "", fmt.Errorf("%w: no lookup role", ErrNoHandlerRole)
	}
	return id, nil
}

func (f *fakeIAM) set(account, store, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ids[account+"/"+store] = id
}

// TestRoleLookupJoinsWithTheStoresDeploy: a store on the roster without a
// role id is refused until its own deploy creates its roles, then admitted by
// exactly "<its role id>:<its function name>"; a forger is refused and costs
// at most one lookup per RetryAfter; a passing failure keeps the answer
// (error) instead of refusing it; a redeployed role is learned.
func TestRoleLookupJoinsWithTheStoresDeploy(t *testing.T) {
	const acct, store = "300000000001", "orders-0001"
	const id1, id2 = "AROAEXAMPLEEXAMPLE001", "AROAEXAMPLEEXAMPLE002"
	iam := &fakeIAM{ids: map[string]string{}}
	now := time.Unix(1_800_000_000, 0)
	roster, accounts := RosterOf([]contract.LedgerRosterEntry{{Store: store, Account: acct, LingeringDays: -1}, {Store: "space", RoleID: id1, LingeringDays: -1}})
	r := &Reader{Roster: roster, Accounts: accounts, Lookup: &RoleLookup{Resolver: iam, RetryAfter: time.Minute, Now: func() time.Time { return now }}}
	ctx := context.Background()
	is := func(sender string, want bool, wantErr bool) {
		t.Helper()
		got, err := r.authenticates(ctx, store, sender)
		if got != want || (err != nil) != wantErr {
			t.Fatalf("sender %q: got %v, %v; want %v, error %v", sender, got, err, want, wantErr)
		}
	}
	handler := func(id string) string { return contract.HandlerSenderID(id, contract.HandlerName(store)) }

	is(handler(id1), false, false) // not deployed: refused
	iam.set(acct, store, id1)
	is(handler(id1), false, false) // deployed, but looked up a moment ago
	if iam.calls != 1 {
		t.Fatalf("%d lookups within RetryAfter, want 1", iam.calls)
	}
	now = now.Add(time.Minute)
	is(handler(id1), true, false) // joined with its own deploy
	is(handler(id1), true, false)
	for range 100 { // a forger: another role, the store's function name
		is(handler(id2), false, false)
		is(id1+":erasure-handler-other", false, false)
	}
	if iam.calls != 2 {
		t.Fatalf("%d lookups for one join and 200 forgeries within a minute, want 2", iam.calls)
	}
	// The store's role redeployed (a new id): learned after RetryAfter.
	iam.set(acct, store, id2)
	now = now.Add(time.Minute)
	is(handler(id2), true, false)
	is(handler(id1), false, false)
	// A passing failure keeps the answer (an error), never refuses it.
	iam.fail = errors.New("throttled")
	now = now.Add(time.Minute)
	is(handler(id1), false, true)
	is(handler(id1), false, true) // remembered within RetryAfter: still kept
	is(handler(id2), true, false) // the id known before stays good
	iam.fail = nil
	// A store the roster holds an id for is never looked up; one off the roster never admitted.
	calls := iam.calls
	if ok, err := r.authenticates(ctx, "space", contract.HandlerSenderID(id1, contract.HandlerName("space"))); !ok || err != nil {
		t.Fatalf("the roster's own id: %v %v", ok, err)
	}
	if ok, _ := r.authenticates(ctx, "nobody", handler(id2)); ok {
		t.Fatal("a store off the roster was admitted")
	}
	if iam.calls != calls {
		t.Fatal("a lookup for a store whose id the roster holds, or off the roster")
	}
	// The store moved to another account: looked up there, at once.
	r.Accounts[store] = "300000000002"
	iam.set("300000000002", store, id1)
	is(handler(id1), true, false)
}

// TestRoleLookupRace: readers of one ledger instance authenticate answers
// concurrently while stores deploy and redeploy; every admitted answer's
// sender is the handler of that store's role as IAM held it at that moment
// or before (an independent oracle: the history of every id each store ever
// had), and never a forger's. Seeded; run with -race.
func TestRoleLookupRace(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	iam := &fakeIAM{ids: map[string]string{}}
	var clock sync.Mutex
	now := time.Unix(1_800_000_000, 0)
	tick := func() time.Time { clock.Lock(); defer clock.Unlock(); now = now.Add(time.Second); return now }
	var entries []contract.LedgerRosterEntry
	for i := range 8 {
		entries = append(entries, contract.LedgerRosterEntry{Store: fmt.Sprintf("store-%d", i), Account: fmt.Sprintf("3000000000%02d", i%3), LingeringDays: -1})
	}
	roster, accounts := RosterOf(entries)
	r := &Reader{Roster: roster, Accounts: accounts, Lookup: &RoleLookup{Resolver: iam, RetryAfter: 5 * time.Second, Now: tick}}
	var hist sync.Map // store → map of ids it ever had (guarded by iam.mu when written)
	ever := func(store, id string) bool {
		v, _ := hist.Load(store + "/" + id)
		return v != nil
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed + int64(w)))
			for range 2000 {
				e := entries[rng.Intn(len(entries))]
				switch rng.Intn(4) {
				case 0: // the store deploys or redeploys: a new role id
					id := fmt.Sprintf("AROAEXAMPLE%010d", rng.Int63n(1e10))
					hist.Store(e.Store+"/"+id, true)
					iam.set(e.Account, e.Store, id)
				default:
					id := fmt.Sprintf("AROAEXAMPLE%010d", rng.Int63n(1e10))
					if rng.Intn(2) == 0 {
						iam.mu.Lock()
						if cur := iam.ids[e.Account+"/"+e.Store]; cur != "" {
							id = cur
						}
						iam.mu.Unlock()
					}
					sender := contract.HandlerSenderID(id, contract.HandlerName(e.Store))
					ok, err := r.authenticates(context.Background(), e.Store, sender)
					if err != nil {
						t.Errorf("a passing failure where IAM never fails: %v", err)
					}
					if ok && !ever(e.Store, id) {
						t.Errorf("admitted a sender that was never %s's handler role", e.Store)
					}
				}
			}
		}()
	}
	wg.Wait()
}
