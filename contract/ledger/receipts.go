package ledger

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/linn-cloud/erasure-channel/contract"
)

// ReceiptVersion is the receipt format's version.
const ReceiptVersion = 1

// Receipt is the evidence of one completed request. It outlives the data and
// holds no personal data: the key only as an HMAC under the ledger's secret.
type Receipt struct {
	Version     int            `json:"receiptVersion"`
	RequestID   string         `json:"requestId"`
	Type        string         `json:"type"`
	KeyKind     string         `json:"keyKind"`
	KeyDigest   string         `json:"keyDigest"`
	ReceivedAt  string         `json:"receivedAt"`
	DueBy       string         `json:"dueBy"`
	CompletedAt string         `json:"completedAt"`
	SendNo      int            `json:"sendNo,omitempty"`
	Roster      []string       `json:"roster"`
	Stores      []StoreOutcome `json:"stores"`
}

// StoreOutcome is one store's answer in a receipt.
type StoreOutcome struct {
	Subscriber string `json:"subscriber"`
	Outcome    string `json:"outcome"`
	AnsweredAt string `json:"answeredAt"`
	// Sender is the SQS SenderId that proved who answered: the handler
	// role's unique id and the function's name.
	Sender string `json:"sender"`
	// LingeringDays bounds how long the erased key may linger in the store's
	// noncurrent object versions (a bitmap store), 0 where nothing lingers.
	LingeringDays int `json:"lingeringDays,omitempty"`
}

// GenerateLogKey returns a new signer key and its verifier key for the
// receipt log's tree heads (note keys named name).
func GenerateLogKey(name string) (signer, verifier string, err error) {
	return note.GenerateKey(rand.Reader, name)
}

const logPK = "LOG"

func recSK(i int64) string  { return fmt.Sprintf("REC#%012d", i) }
func hashSK(i int64) string { return fmt.Sprintf("HASH#%012d", i) }

// hashReader reads the log's stored hashes from the table.
type hashReader struct {
	ctx context.Context
	l   *Ledger
}

func (h hashReader) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		it, err := h.l.consistentGet(h.ctx, key(logPK, hashSK(idx)))
		if err != nil {
			return nil, err
		}
		hh, err := tlog.ParseHash(str(it, "H"))
		if it == nil || err != nil {
			return nil, fail("LOG_CORRUPT", errors.New("a stored hash of the log is missing"))
		}
		out[i] = hh
	}
	return out, nil
}

// head is the log's size and its signed tree head.
func (l *Ledger) head(ctx context.Context) (int64, string, error) {
	it, err := l.consistentGet(ctx, key(logPK, "HEAD"))
	if err != nil || it == nil {
		return 0, "", err
	}
	return int64(num(it, "TreeSize")), str(it, "Signed"), nil
}

// sweepReceipt builds a completed request's receipt, appends it to the log and
// records its index on the request.
func (l *Ledger) sweepReceipt(ctx context.Context, id string, rep *SweepReport) error {
	if l.signer == "" {
		return nil
	}
	it, err := l.consistentGet(ctx, key(reqPK(id), "REQ"))
	if err != nil || it == nil {
		return err
	}
	r := requestOf(id, it)
	if r.Status != StatusComplete || r.LogIndex >= 0 {
		return nil
	}
	sendNo := num(it, "CompletedSendNo")
	answers, err := l.queryAll(ctx, reqPK(id), answerPrefix(sendNo))
	if err != nil {
		return err
	}
	rec := Receipt{Version: ReceiptVersion, RequestID: id, Type: string(r.Type), KeyKind: string(r.KeyKind), KeyDigest: r.KeyDigest,
		ReceivedAt: stamp(r.ReceivedAt), DueBy: stamp(r.DueBy), CompletedAt: stamp(r.CompletedAt), SendNo: sendNo, Roster: r.Roster}
	for _, a := range answers {
		st := str(a, "SK")[len(answerPrefix(sendNo)):]
		rec.Stores = append(rec.Stores, StoreOutcome{Subscriber: st, Outcome: str(a, "Outcome"), AnsweredAt: str(a, "AnsweredAt"),
			Sender: str(a, "Sender"), LingeringDays: l.linger[st]})
	}
	sort.Slice(rec.Stores, func(i, j int) bool { return rec.Stores[i].Subscriber < rec.Stores[j].Subscriber })
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	idx, err := l.appendReceipt(ctx, id, data)
	if err != nil {
		return err
	}
	// The receipt holds what the answers said: they and the rounds expire
	// after the retention, before LogIndex marks the request done, so that
	// a sweeper that crashes here does it again.
	if err := l.expireRounds(ctx, id); err != nil {
		return err
	}
	_, err = l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: key(reqPK(id), "REQ"),
		UpdateExpression: aws.String("SET LogIndex = :i REMOVE Pending, Due"), ExpressionAttributeValues: item{":i": n(int(idx))}})
	if err != nil {
		return fail("WRITE_FAILED", err)
	}
	rep.Receipts++
	return nil
}

func bySK(requestID string) string { return "BY#" + requestID }

// ExpireAttribute is the table's TTL attribute (contract.LedgerExpireAttribute).
const ExpireAttribute = contract.LedgerExpireAttribute

// expireRounds sets the TTL of a request's rounds, answers and conflicts to
// ledgerAnswerRetentionDays from now. The request item, which names the
// receipt's index, and the receipt log stay.
func (l *Ledger) expireRounds(ctx context.Context, id string) error {
	at := n(int(l.now().Add(l.c.LedgerAnswerRetention()).Unix()))
	for _, prefix := range []string{"ROUND#", "ANS#", "CONFLICT#"} {
		items, err := l.queryAll(ctx, reqPK(id), prefix)
		if err != nil {
			return err
		}
		for _, it := range items {
			_, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: key(reqPK(id), str(it, "SK")),
				UpdateExpression: aws.String("SET #e = :e"), ExpressionAttributeNames: map[string]string{"#e": ExpireAttribute},
				ExpressionAttributeValues: item{":e": at}})
			if err != nil {
				return fail("WRITE_FAILED", err)
			}
		}
	}
	return nil
}

// appendReceipt appends a request's receipt exactly once, whatever runs
// beside it or crashed before. One marker (LOG, BY#<requestId>), created only
// if absent, names the index the request's receipt takes; every appender of
// the request reads it again on every try and moves it only from the index
// it read (a conditional write), when another request's record took that
// index first. A record is written only where none is, and carries the
// ledger's MAC (recordMAC), so that an append that stopped before its tree
// head is finished by the next appender only if the ledger wrote it: a record
// anyone else wrote into the table is refused (LOG_FORGED, counted in
// MetricReceiptLogRefused) and left where it is, and the log grows no more
// until an operator removes it.
func (l *Ledger) appendReceipt(ctx context.Context, requestID string, data []byte) (int64, error) {
	if _, err := note.NewSigner(l.signer); err != nil {
		return 0, fail("BAD_SIGNER", errors.New("the log's signer key does not parse"))
	}
	mk := key(logPK, bySK(requestID))
	for range 32 {
		marker, err := l.consistentGet(ctx, mk)
		if err != nil {
			return 0, err
		}
		size, _, err := l.head(ctx)
		if err != nil {
			return 0, err
		}
		if marker == nil {
			m := key(logPK, bySK(requestID))
			m["Index"] = n(int(size))
			_, err := l.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.table), Item: m, ConditionExpression: aws.String("attribute_not_exists(PK)")})
			if err != nil && !isConditionFailed(err) {
				return 0, fail("WRITE_FAILED", err)
			}
			continue // read the marker that stands, ours or another appender's
		}
		idx := int64(num(marker, "Index"))
		rec, err := l.consistentGet(ctx, key(logPK, recSK(idx)))
		if err != nil {
			return 0, err
		}
		switch {
		case rec != nil && str(rec, "RequestId") == requestID:
			if err := l.authentic(idx, rec); err != nil {
				return 0, err
			}
			return idx, l.finishAppend(ctx, idx, []byte(str(rec, "Data")))
		case rec == nil && idx < size:
			return 0, fail("LOG_CORRUPT", errors.New("a record inside the signed head is missing"))
		case rec == nil && idx > size:
			return 0, fail("LOG_CORRUPT", errors.New("a receipt's marker is past the log's head: the head was rolled back"))
		case rec == nil: // idx == size: take it
			r := key(logPK, recSK(idx))
			r["Data"], r["RequestId"], r["Mac"] = s(string(data)), s(requestID), s(l.recordMAC(idx, requestID, data))
			_, err := l.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.table), Item: r, ConditionExpression: aws.String("attribute_not_exists(PK)")})
			if isConditionFailed(err) {
				continue // another appender wrote the index first
			}
			if err != nil {
				return 0, fail("WRITE_FAILED", err)
			}
			return idx, l.finishAppend(ctx, idx, data)
		}
		// Another request's record holds idx: finish it if it stopped before
		// its head, then move the marker to the head, from idx only.
		if dangling, err := l.consistentGet(ctx, key(logPK, recSK(size))); err != nil {
			return 0, err
		} else if dangling != nil {
			if err := l.authentic(size, dangling); err != nil {
				return 0, err
			}
			if err := l.finishAppend(ctx, size, []byte(str(dangling, "Data"))); err != nil {
				return 0, err
			}
			continue
		}
		_, err = l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: mk,
			UpdateExpression: aws.String("SET #i = :n"), ConditionExpression: aws.String("#i = :o"),
			ExpressionAttributeNames: map[string]string{"#i": "Index"}, ExpressionAttributeValues: item{":n": n(int(size)), ":o": n(int(idx))}})
		if err != nil && !isConditionFailed(err) {
			return 0, fail("WRITE_FAILED", err)
		}
	}
	return 0, fail("LOG_CONTENDED", errors.New("the log's head kept moving"))
}

// recordMAC is the ledger's MAC over record idx of requestID: a key derived
// from the ledger's secret, over the index, the request and the record.
func (l *Ledger) recordMAC(idx int64, requestID string, data []byte) string {
	k := hmac.New(sha256.New, l.secret)
	k.Write([]byte("receipt-record"))
	m := hmac.New(sha256.New, k.Sum(nil))
	fmt.Fprintf(m, "%d\x00%s\x00", idx, requestID)
	m.Write(data)
	return base64.RawStdEncoding.EncodeToString(m.Sum(nil))
}

// authentic refuses record idx unless the ledger wrote it (its MAC holds):
// LOG_FORGED, counted, the record left for investigation.
func (l *Ledger) authentic(idx int64, rec item) error {
	want := l.recordMAC(idx, str(rec, "RequestId"), []byte(str(rec, "Data")))
	if hmac.Equal([]byte(want), []byte(str(rec, "Mac"))) {
		return nil
	}
	l.emit(contract.MetricReceiptLogRefused, contract.CodeLogForged)
	return fail(contract.CodeLogForged, fmt.Errorf("record %d of the receipt log does not carry the ledger's MAC: the ledger did not write it; it is left for investigation and the log grows no more until it is removed", idx))
}

// finishAppend writes record size's stored hashes and the signed tree head of
// size+1 records; each step is idempotent.
func (l *Ledger) finishAppend(ctx context.Context, size int64, data []byte) error {
	signer, err := note.NewSigner(l.signer)
	if err != nil {
		return fail("BAD_SIGNER", errors.New("the log's signer key does not parse"))
	}
	r := hashReader{ctx, l}
	hashes, err := tlog.StoredHashes(size, data, r)
	if err != nil {
		return err
	}
	base := tlog.StoredHashIndex(0, size)
	for i, h := range hashes {
		it := key(logPK, hashSK(base+int64(i)))
		it["H"] = s(h.String())
		_, err := l.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.table), Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)")})
		if err != nil && !isConditionFailed(err) { // the same hash, written by an append that stopped
			return fail("WRITE_FAILED", err)
		}
	}
	th, err := tlog.TreeHash(size+1, r)
	if err != nil {
		return err
	}
	signed, err := note.Sign(&note.Note{Text: string(tlog.FormatTree(tlog.Tree{N: size + 1, Hash: th}))}, signer)
	if err != nil {
		return err
	}
	cond, vals := "attribute_not_exists(PK)", item{":n": n(int(size + 1)), ":s": s(string(signed))}
	if size > 0 {
		cond, vals[":o"] = "TreeSize = :o", n(int(size))
	}
	_, err = l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: key(logPK, "HEAD"),
		UpdateExpression: aws.String("SET TreeSize = :n, Signed = :s"), ConditionExpression: aws.String(cond), ExpressionAttributeValues: vals})
	if err != nil && !isConditionFailed(err) { // the head already covers it
		return fail("WRITE_FAILED", err)
	}
	return nil
}

// VerifiedReceipt is a receipt with its place in the log, proved against the
// signed tree head.
type VerifiedReceipt struct {
	Receipt  Receipt
	Index    int64
	TreeSize int64
}

// ReceiptOf reads a request's receipt and proves it is in the log under the
// tree head verifier signed.
func (l *Ledger) ReceiptOf(ctx context.Context, requestID, verifierKey string) (VerifiedReceipt, error) {
	r, ok, err := l.Get(ctx, requestID)
	if err != nil {
		return VerifiedReceipt{}, err
	}
	if !ok {
		return VerifiedReceipt{}, ErrNoSuchRequest
	}
	if r.LogIndex < 0 {
		return VerifiedReceipt{}, fail("NO_RECEIPT", fmt.Errorf("the request is %s and has no receipt yet", strings.ToLower(string(r.Status))))
	}
	tree, err := l.verifiedHead(ctx, verifierKey)
	if err != nil {
		return VerifiedReceipt{}, err
	}
	it, err := l.consistentGet(ctx, key(logPK, recSK(int64(r.LogIndex))))
	if err != nil || it == nil {
		return VerifiedReceipt{}, fail("LOG_CORRUPT", errors.New("the receipt's record is missing"))
	}
	data := []byte(str(it, "Data"))
	proof, err := tlog.ProveRecord(tree.N, int64(r.LogIndex), hashReader{ctx, l})
	if err != nil {
		return VerifiedReceipt{}, fail("LOG_CORRUPT", err)
	}
	if err := tlog.CheckRecord(proof, tree.N, tree.Hash, int64(r.LogIndex), tlog.RecordHash(data)); err != nil {
		return VerifiedReceipt{}, fail("RECEIPT_NOT_IN_LOG", errors.New("the receipt does not prove into the signed tree head"))
	}
	var rec Receipt
	if err := json.Unmarshal(data, &rec); err != nil || rec.RequestID != requestID {
		return VerifiedReceipt{}, fail("LOG_CORRUPT", errors.New("the receipt's record is not this request's"))
	}
	return VerifiedReceipt{Receipt: rec, Index: int64(r.LogIndex), TreeSize: tree.N}, nil
}

func (l *Ledger) verifiedHead(ctx context.Context, verifierKey string) (tlog.Tree, error) {
	_, signed, err := l.head(ctx)
	if err != nil {
		return tlog.Tree{}, err
	}
	if signed == "" {
		return tlog.Tree{}, fail("EMPTY_LOG", errors.New("the log has no tree head"))
	}
	tree, err := openHead(signed, verifierKey)
	if e := (*Error)(nil); errors.As(err, &e) && e.Code == "HEAD_NOT_SIGNED" {
		return tlog.Tree{}, fail("HEAD_NOT_SIGNED", errors.New("the tree head is not signed by the verifier's key"))
	}
	return tree, err
}

// LogReport is what Verify found.
type LogReport struct {
	Size     int64
	Receipts int
	// Head is the signed tree head verified: keep it, and pass it as the
	// trusted head of the next verification (VerifyOptions.TrustedHead).
	Head string
	// Completed is the completed requests whose receipt lies inside the tree.
	Completed int
	// Anchored is the size of the latest head the anchor holds (with
	// VerifyOptions.Anchor): the records past it are held by the table
	// alone until the next sweep anchors them. AnchorInvalid counts the
	// newer objects in the anchor that were no head of this ledger's.
	Anchored      int64
	AnchorInvalid int
}

// VerifyOptions are what a verifier brings besides the verifier key.
type VerifyOptions struct {
	// TrustedHead is a signed tree head the verifier already trusts (an
	// earlier LogReport.Head, or the anchor's copy): the log must extend it,
	// proved by a tlog consistency proof, or it was rolled back or forked.
	TrustedHead string
	// Authenticate also checks every record's MAC (LOG_FORGED): only a
	// ledger opened with its own secret can; a reader without it (erasurectl)
	// checks the signed head and the hashes.
	Authenticate bool
	// Anchor is the ledger's anchor bucket: the log must extend the latest
	// head it holds, and the anchor must hold one once the log has records.
	Anchor *Anchor
}

// Verify checks the whole log: the tree head is signed by verifierKey, and the
// tree hash recomputed from every record matches it; every record is a
// receipt; every completed request's receipt lies inside the tree. A changed,
// removed or added record fails it.
func (l *Ledger) Verify(ctx context.Context, verifierKey string) (LogReport, error) {
	return l.VerifyWith(ctx, verifierKey, VerifyOptions{})
}

// VerifyWith is Verify, and with a trusted head, that the log extends it: a
// head restored from an older backup with the newer records removed fails
// (LOG_ROLLED_BACK), as does a receipt index past the head.
func (l *Ledger) VerifyWith(ctx context.Context, verifierKey string, opts VerifyOptions) (LogReport, error) {
	tree, err := l.verifiedHead(ctx, verifierKey)
	if err != nil {
		return LogReport{}, err
	}
	var trusted []tlog.Tree
	if opts.TrustedHead != "" {
		t, err := openHead(opts.TrustedHead, verifierKey)
		if err != nil {
			return LogReport{}, err
		}
		trusted = append(trusted, t)
	}
	var anchored AnchoredHead
	if opts.Anchor != nil {
		h, ok, err := opts.Anchor.latest(ctx, verifierKey)
		if err != nil {
			return LogReport{}, err
		}
		if !ok && tree.N > 0 {
			return LogReport{}, fail("ANCHOR_EMPTY", errors.New("the anchor bucket holds no head signed by the verifier key: it is not this ledger's anchor, or the sweeper never wrote to it"))
		}
		anchored = h
		trusted = append(trusted, h.Tree)
	}
	for _, t := range trusted {
		if t.N > tree.N {
			return LogReport{}, fail(CodeLogRolledBack, fmt.Errorf("the log's signed head covers %d records, fewer than the %d of a trusted head", tree.N, t.N))
		}
	}
	recs, err := l.queryAll(ctx, logPK, "REC#")
	if err != nil {
		return LogReport{}, err
	}
	if int64(len(recs)) != tree.N {
		return LogReport{}, fail("LOG_TAMPERED", fmt.Errorf("the log holds %d records, its signed head %d", len(recs), tree.N))
	}
	var mem []tlog.Hash
	reader := tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			out[i] = mem[x]
		}
		return out, nil
	})
	for i, it := range recs {
		if str(it, "SK") != recSK(int64(i)) {
			return LogReport{}, fail("LOG_TAMPERED", errors.New("the log's records are not contiguous"))
		}
		data := []byte(str(it, "Data"))
		var rec Receipt
		if err := json.Unmarshal(data, &rec); err != nil || rec.Version != ReceiptVersion || rec.RequestID != str(it, "RequestId") {
			return LogReport{}, fail("LOG_TAMPERED", fmt.Errorf("record %d is not a receipt", i))
		}
		if opts.Authenticate {
			if err := l.authentic(int64(i), it); err != nil {
				return LogReport{}, err
			}
		}
		hs, err := tlog.StoredHashes(int64(i), data, reader)
		if err != nil {
			return LogReport{}, err
		}
		mem = append(mem, hs...)
	}
	th, err := tlog.TreeHash(tree.N, reader)
	if err != nil {
		return LogReport{}, err
	}
	if th != tree.Hash {
		return LogReport{}, fail("LOG_TAMPERED", errors.New("the records do not hash to the signed tree head"))
	}
	for _, t := range trusted {
		proof, err := tlog.ProveTree(tree.N, t.N, reader)
		if err != nil || tlog.CheckTree(proof, tree.N, tree.Hash, t.N, t.Hash) != nil {
			return LogReport{}, fail(CodeLogRolledBack, errors.New("the log does not extend a trusted head: it was rolled back and rewritten, or forked"))
		}
	}
	completed, err := l.receiptsInside(ctx, recs, tree.N)
	if err != nil {
		return LogReport{}, err
	}
	_, signed, err := l.head(ctx)
	if err != nil {
		return LogReport{}, err
	}
	return LogReport{Size: tree.N, Receipts: len(recs), Head: signed, Completed: completed,
		Anchored: anchored.Tree.N, AnchorInvalid: anchored.Invalid}, nil
}

// openHead opens a signed tree head under verifierKey.
func openHead(signed, verifierKey string) (tlog.Tree, error) {
	v, err := note.NewVerifier(verifierKey)
	if err != nil {
		return tlog.Tree{}, fail("BAD_VERIFIER", errors.New("the verifier key does not parse"))
	}
	msg, err := note.Open([]byte(signed), note.VerifierList(v))
	if err != nil {
		return tlog.Tree{}, fail("HEAD_NOT_SIGNED", errors.New("the trusted head is not signed by the verifier's key"))
	}
	tree, err := tlog.ParseTree([]byte(msg.Text))
	if err != nil {
		return tlog.Tree{}, fail("LOG_CORRUPT", errors.New("the trusted head does not parse"))
	}
	return tree, nil
}

// receiptsInside checks that every completed request that names a receipt
// index names one inside the tree, whose record is its own: a log cut back
// below a receipt fails (LOG_ROLLED_BACK). It scans the requests.
func (l *Ledger) receiptsInside(ctx context.Context, recs []item, size int64) (int, error) {
	n := 0
	err := l.eachRequest(ctx, true, func(r Request) error {
		if r.Status != StatusComplete || r.LogIndex < 0 {
			return nil
		}
		if int64(r.LogIndex) >= size || str(recs[r.LogIndex], "RequestId") != r.RequestID {
			return fail(CodeLogRolledBack, errors.New("a completed request's receipt is not inside the signed tree: the log was cut back"))
		}
		n++
		return nil
	})
	return n, err
}
