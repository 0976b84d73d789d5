package main

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "cuzk.local/curioclient/cuzkpb"
)

// abi.RegisteredPoStProof numbers by the Rust API's names (fil-oracle's post.json uses those; Go's
// StackedDrgWindow*V1_1 is Rust's V1_2).
var postProofNumbers = map[string]uint64{
	"StackedDrgWinning2KiBV1": 0, "StackedDrgWinning8MiBV1": 1, "StackedDrgWinning512MiBV1": 2,
	"StackedDrgWinning32GiBV1": 3, "StackedDrgWinning64GiBV1": 4,
	"StackedDrgWindow2KiBV1": 5, "StackedDrgWindow8MiBV1": 6, "StackedDrgWindow512MiBV1": 7,
	"StackedDrgWindow32GiBV1": 8, "StackedDrgWindow64GiBV1": 9,
	"StackedDrgWindow2KiBV1_2": 10, "StackedDrgWindow8MiBV1_2": 11, "StackedDrgWindow512MiBV1_2": 12,
	"StackedDrgWindow32GiBV1_2": 13, "StackedDrgWindow64GiBV1_2": 14,
}

// abi.RegisteredSealProof numbers of the V1_1 proofs by sector size (what Curio seals with today).
var sealV11BySize = map[uint64]uint64{2 << 10: 5, 8 << 20: 6, 512 << 20: 7, 32 << 30: 8, 64 << 30: 9}

type postJSON struct {
	Kind            string `json:"kind"`
	RegisteredProof string `json:"registered_proof"`
	SectorSize      uint64 `json:"sector_size"`
	MinerID         uint64 `json:"miner_id"`
	Randomness      string `json:"randomness"`
	Sectors         []struct {
		SectorID uint64 `json:"sector_id"`
		Vanilla  string `json:"vanilla"`
	} `json:"sectors"`
}

// The SubmitProofRequest Curio's WindowPoStCuzk / WinningPoStCuzk would build for fil-oracle's
// post.json in dir.
func postRequest(dir string) *pb.SubmitProofRequest {
	var p postJSON
	readJSON(filepath.Join(dir, "post.json"), &p)
	n, ok := postProofNumbers[p.RegisteredProof]
	if !ok {
		fail(2, "%s/post.json: registered_proof: unknown %q", dir, p.RegisteredProof)
	}
	rnd, err := hex.DecodeString(p.Randomness)
	if err != nil || len(rnd) != 32 {
		fail(2, "%s/post.json: randomness: not 64 hex digits", dir)
	}
	req := &pb.SubmitProofRequest{
		SectorSize: p.SectorSize, RegisteredProof: n, MinerId: p.MinerID, Randomness: rnd,
	}
	if p.Kind == "winning" {
		req.ProofKind, req.Priority = pb.ProofKind_WINNING_POST, pb.Priority_CRITICAL
	} else {
		req.ProofKind, req.Priority = pb.ProofKind_WINDOW_POST_PARTITION, pb.Priority_HIGH
	}
	for _, s := range p.Sectors {
		b, err := os.ReadFile(filepath.Join(dir, s.Vanilla))
		if err != nil {
			fail(2, "%v", err)
		}
		req.VanillaProofs = append(req.VanillaProofs, b)
	}
	return req
}

type c1Wrapper struct {
	SectorNum  int64  `json:"SectorNum"`
	Phase1Out  []byte `json:"Phase1Out"`
	SectorSize uint64 `json:"SectorSize"`
}

// The SubmitProofRequest Curio's PoRepSnarkCuzk builds from a C1 wrapper file.
func porepRequest(c1Path string, miner uint64) *pb.SubmitProofRequest {
	var w c1Wrapper
	raw := readJSON(c1Path, &w)
	rp, ok := sealV11BySize[w.SectorSize]
	if !ok {
		fail(2, "%s: SectorSize: %d is not a sector size", c1Path, w.SectorSize)
	}
	return &pb.SubmitProofRequest{
		RequestId: fmt.Sprintf("porep-%d-%d-%d", miner, w.SectorNum, time.Now().UnixNano()),
		ProofKind: pb.ProofKind_POREP_SEAL_COMMIT, SectorSize: w.SectorSize, RegisteredProof: rp,
		Priority: pb.Priority_NORMAL, VanillaProof: raw, SectorNumber: uint64(w.SectorNum), MinerId: miner,
	}
}

// keepProof writes a completed job's proof (N x 192 bytes) to out; anything else is a failed
// check, printed as one "not ok" line.
func keepProof(call string, r *pb.AwaitProofResponse, out string) bool {
	if r.GetStatus() != pb.AwaitProofResponse_COMPLETED {
		fmt.Printf("not ok: %s: job %s %v: %s\n", call, r.GetJobId(), r.GetStatus(), r.GetErrorMessage())
		return false
	}
	if len(r.GetProof()) == 0 || len(r.GetProof())%192 != 0 {
		fmt.Printf("not ok: %s: job %s: proof is %d bytes, not N x 192\n", call, r.GetJobId(), len(r.GetProof()))
		return false
	}
	if err := os.WriteFile(out, r.GetProof(), 0o644); err != nil {
		fail(2, "%v", err)
	}
	return true
}

// Prove as Curio's client does: one Prove call; anything but COMPLETED is an error.
func prove(ctx context.Context, c pb.ProvingEngineClient, req *pb.SubmitProofRequest, out string) int {
	resp, err := c.Prove(ctx, &pb.ProveRequest{Submit: req})
	if err != nil {
		fmt.Printf("not ok: Prove: %v\n", err)
		return 1
	}
	r := resp.GetResult()
	if !keepProof("Prove", r, out) {
		return 1
	}
	fmt.Printf("ok: %v job %s: %d-byte proof in %d ms (queue %d, params %d, synthesis %d, device %d) -> %s\n",
		req.GetProofKind(), r.GetJobId(), len(r.GetProof()), r.GetTotalMs(), r.GetQueueWaitMs(), r.GetSrsLoadMs(),
		r.GetSynthesisMs(), r.GetGpuComputeMs(), out)
	return 0
}

func runPost(ctx context.Context, c pb.ProvingEngineClient, args []string) int {
	fs := flag.NewFlagSet("post", flag.ExitOnError)
	dir := fs.String("dir", "", "fil-oracle post output (post.json, vanilla-*.bin)")
	out := fs.String("out", "", "where the proof goes")
	parseFlags(fs, args, "dir", "out")
	return prove(ctx, c, postRequest(*dir), *out)
}

// submit: SubmitProof only, prints the job id (for the restart test: the daemon dies after this).
// A directory with update.json is a SnapDeals update, else a PoSt.
func runSubmit(ctx context.Context, c pb.ProvingEngineClient, args []string) int {
	fs := flag.NewFlagSet("submit", flag.ExitOnError)
	dir := fs.String("dir", "", "fil-oracle post output (post.json, vanilla-*.bin) or update output (update.json, vanilla-*.bin)")
	parseFlags(fs, args, "dir")
	var req *pb.SubmitProofRequest
	if _, err := os.Stat(filepath.Join(*dir, "update.json")); err == nil {
		req = snapRequest(*dir)
	} else {
		req = postRequest(*dir)
	}
	req.RequestId = fmt.Sprintf("curio-client-%d", time.Now().UnixNano())
	r, err := c.SubmitProof(ctx, req)
	if err != nil {
		fmt.Fprintf(os.Stderr, "not ok: SubmitProof: %v\n", err)
		return 1
	}
	fmt.Println(r.GetJobId())
	return 0
}

// await: AwaitProof until the job ends; writes its proof.
func runAwait(ctx context.Context, c pb.ProvingEngineClient, args []string) int {
	fs := flag.NewFlagSet("await", flag.ExitOnError)
	job := fs.String("job", "", "job id")
	out := fs.String("out", "", "where the proof goes")
	parseFlags(fs, args, "job", "out")
	r, err := c.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: *job})
	if err != nil {
		fmt.Printf("not ok: AwaitProof: %v\n", err)
		return 1
	}
	if !keepProof("AwaitProof", r, *out) {
		return 1
	}
	fmt.Printf("ok: job %s completed: %d-byte proof -> %s\n", *job, len(r.GetProof()), *out)
	return 0
}

func runPoRep(ctx context.Context, c pb.ProvingEngineClient, args []string) int {
	fs := flag.NewFlagSet("porep", flag.ExitOnError)
	c1 := fs.String("c1", "", "Curio's C1 wrapper JSON")
	miner := fs.Uint64("miner", 1000, "miner actor id")
	out := fs.String("out", "", "where the proof goes")
	parseFlags(fs, args, "c1", "out")
	return prove(ctx, c, porepRequest(*c1, *miner), *out)
}

func runStatus(ctx context.Context, c pb.ProvingEngineClient) int {
	s, err := c.GetStatus(ctx, &pb.GetStatusRequest{})
	if err != nil {
		fmt.Printf("not ok: GetStatus: %v\n", err)
		return 1
	}
	var pending uint32
	for _, q := range s.GetQueues() {
		pending += q.GetPending() + q.GetInProgress()
		fmt.Printf("queue %s: %d pending, %d in progress\n", q.GetProofKind(), q.GetPending(), q.GetInProgress())
	}
	for _, g := range s.GetGpus() {
		fmt.Printf("device %d %s: %d bytes of VRAM budget free\n", g.GetOrdinal(), g.GetName(), g.GetVramFreeBytes())
	}
	for _, k := range s.GetLoadedSrs() {
		fmt.Printf("key %s: %v, %d bytes, %d refs\n", k.GetCircuitId(), k.GetTier(), k.GetSizeBytes(), k.GetRefCount())
	}
	fmt.Printf("ok: status: %d proofs completed, %d failed, up %d s, %d jobs pending (Curio's back-pressure sum), pinned %d / %d bytes\n",
		s.GetTotalProofsCompleted(), s.GetTotalProofsFailed(), s.GetUptimeSeconds(), pending, s.GetPinnedMemoryBytes(),
		s.GetPinnedMemoryLimitBytes())
	if len(s.GetGpus()) == 0 || len(s.GetQueues()) == 0 {
		fmt.Println("not ok: status lists no device or no queue")
		return 1
	}
	return 0
}

// Submits a job, cancels it at once, awaits it: CANCELLED (or COMPLETED when it won the race); then
// the daemon must come back to idle: no job pending or running, and the host budget holding nothing
// but the loaded keys (its reservations equal the keys' bytes: every partition's memory returned).
func runCancel(ctx context.Context, c pb.ProvingEngineClient, args []string) int {
	fs := flag.NewFlagSet("cancel", flag.ExitOnError)
	dir := fs.String("dir", "", "fil-oracle post output to submit (post.json, vanilla-*.bin)")
	c1 := fs.String("c1", "", "or a C1 wrapper JSON (PoRep: a longer job)")
	idle := fs.Duration("idle", 30*time.Second, "how long the daemon may take to come back to idle")
	fs.Parse(args)
	var req *pb.SubmitProofRequest
	switch {
	case *c1 != "":
		req = porepRequest(*c1, 1000)
	case *dir != "":
		req = postRequest(*dir)
	default:
		fail(2, "cancel: -dir or -c1 is required")
	}
	sub, err := c.SubmitProof(ctx, req)
	if err != nil {
		fmt.Printf("not ok: SubmitProof: %v\n", err)
		return 1
	}
	// Mid-job: cancel once the engine runs it (a partition dispatched), not while it is queued.
	for running := false; !running; {
		s, err := c.GetStatus(ctx, &pb.GetStatusRequest{})
		if err != nil {
			fmt.Printf("not ok: GetStatus: %v\n", err)
			return 1
		}
		for _, q := range s.GetQueues() {
			running = running || q.GetInProgress() > 0
		}
		if !running {
			if r, err := c.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: sub.GetJobId(), TimeoutMs: 20}); err == nil &&
				r.GetStatus() != pb.AwaitProofResponse_TIMEOUT {
				break // it ended before we saw it run
			}
		}
	}
	cr, err := c.CancelProof(ctx, &pb.CancelProofRequest{JobId: sub.GetJobId()})
	if err != nil {
		fmt.Printf("not ok: CancelProof: %v\n", err)
		return 1
	}
	r, err := c.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: sub.GetJobId()})
	if err != nil {
		fmt.Printf("not ok: AwaitProof: %v\n", err)
		return 1
	}
	if r.GetStatus() != pb.AwaitProofResponse_CANCELLED && r.GetStatus() != pb.AwaitProofResponse_COMPLETED {
		fmt.Printf("not ok: cancelled job %s ended %v: %s\n", sub.GetJobId(), r.GetStatus(), r.GetErrorMessage())
		return 1
	}
	// A synthesizer or device already computing for it finishes that step first (its answer is dropped).
	deadline := time.Now().Add(*idle)
	for {
		s, err := c.GetStatus(ctx, &pb.GetStatusRequest{})
		if err != nil {
			fmt.Printf("not ok: GetStatus: %v\n", err)
			return 1
		}
		busy := uint32(0)
		for _, q := range s.GetQueues() {
			busy += q.GetPending() + q.GetInProgress()
		}
		keys := uint64(0)
		for _, k := range s.GetLoadedSrs() {
			keys += k.GetSizeBytes()
		}
		if busy == 0 && s.GetPinnedMemoryBytes() == keys {
			break
		}
		if time.Now().After(deadline) {
			fmt.Printf("not ok: %v after the cancel: %d jobs busy, %d host bytes reserved, %d of them keys\n", *idle, busy,
				s.GetPinnedMemoryBytes(), keys)
			return 1
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("ok: job %s cancelled (was running: %v), ended %v; the daemon is idle, the host budget holds only keys\n",
		sub.GetJobId(), cr.GetWasRunning(), r.GetStatus())
	return 0
}

type badCase struct {
	name string
	req  *pb.SubmitProofRequest
	code codes.Code
	says []string // the message must contain each
}

func runBadInputs(ctx context.Context, c pb.ProvingEngineClient, args []string) int {
	fs := flag.NewFlagSet("bad-inputs", flag.ExitOnError)
	sample := fs.String("sample", "", "fil-oracle fixtures (window/, sector-1/c1.json)")
	goodOut := fs.String("good-out", "", "where the proof of the good job in flight goes (optional)")
	parseFlags(fs, args, "sample")
	window := func() *pb.SubmitProofRequest { return postRequest(filepath.Join(*sample, "window")) }
	porep := func() *pb.SubmitProofRequest {
		return porepRequest(filepath.Join(*sample, "sector-1", "c1.json"), 1000)
	}

	var cases []badCase
	r := window()
	r.ProofKind = 9
	cases = append(cases, badCase{"unknown proof_kind", r, codes.InvalidArgument, []string{"proof_kind", "9"}})
	r = window()
	r.RegisteredProof = 13 // StackedDrgWindow32GiBV1_1
	cases = append(cases, badCase{"registered_proof for 32 GiB, sector_size 2 KiB", r, codes.InvalidArgument,
		[]string{"sector_size", "2048", "StackedDrgWindow32GiBV1_2"}})
	r = window()
	r.RegisteredProof = 0 // a WinningPoSt proof
	cases = append(cases, badCase{"a WinningPoSt registered_proof for WINDOW_POST_PARTITION", r, codes.InvalidArgument,
		[]string{"registered_proof", "StackedDrgWinning2KiBV1", "WindowPoSt"}})
	r = window()
	r.Randomness = r.Randomness[:31]
	cases = append(cases, badCase{"randomness of 31 bytes", r, codes.InvalidArgument, []string{"randomness", "31"}})
	r = window()
	r.VanillaProofs[0] = r.VanillaProofs[0][:len(r.VanillaProofs[0])/2]
	cases = append(cases, badCase{"a truncated PoSt vanilla proof", r, codes.InvalidArgument, []string{"vanilla_proofs[0]"}})
	r = porep()
	r.VanillaProof = []byte("this is not JSON")
	cases = append(cases, badCase{"vanilla_proof that is not JSON", r, codes.InvalidArgument, []string{"vanilla_proof"}})
	r = porep()
	var w c1Wrapper
	if err := json.Unmarshal(r.VanillaProof, &w); err != nil {
		fail(2, "%v", err)
	}
	r.VanillaProof = w.Phase1Out // the bare SealCommitPhase1Output JSON, without Curio's wrapper
	cases = append(cases, badCase{"vanilla_proof that is the bare C1 output, not the wrapper", r, codes.InvalidArgument,
		[]string{"vanilla_proof", "wrapper"}})
	r = porep()
	r.VanillaProof = []byte(`{"SectorNum": 1, "SectorSize": 2048, "Phase1Out": "` + base64.StdEncoding.EncodeToString([]byte(`{"registered_proof": 5}`)) + `"}`)
	cases = append(cases, badCase{"a wrapper around an incomplete C1 output", r, codes.InvalidArgument, []string{"vanilla_proof"}})
	r = porep()
	r.SectorSize, r.RegisteredProof = 8<<20, 6 // StackedDrg8MiBV1_1: no 8 MiB parameters in the cache
	cases = append(cases, badCase{"missing params file", r, codes.NotFound, []string{"parameters", "v28-stacked-proof-of-replication", ".params"}})
	r = window()
	r.Priority = 9
	cases = append(cases, badCase{"a priority outside the enum", r, codes.InvalidArgument, []string{"priority", "9"}})
	cases = append(cases, badCase{"a circom request with a priority outside the enum",
		&pb.SubmitProofRequest{Circuit: "sample", Priority: 9}, codes.InvalidArgument, []string{"priority", "9"}})
	r = window()
	r.ProofKind = pb.ProofKind_SNAP_DEALS_UPDATE // a WindowPoSt's registered_proof (10) is no update proof
	cases = append(cases, badCase{"SNAP_DEALS_UPDATE with a PoSt's registered_proof", r, codes.InvalidArgument,
		[]string{"registered_proof", "10", "SnapDeals"}})

	before, err := c.GetStatus(ctx, &pb.GetStatusRequest{})
	if err != nil {
		fmt.Printf("not ok: GetStatus: %v\n", err)
		return 1
	}
	// A good job in flight meanwhile: the refusals must not touch it.
	good := window()
	good.RequestId = fmt.Sprintf("bad-inputs-good-%d", time.Now().UnixNano())
	goodJob, err := c.SubmitProof(ctx, good)
	if err != nil {
		fmt.Printf("not ok: SubmitProof of a good WindowPoSt: %v\n", err)
		return 1
	}
	bad := 0
	for _, k := range cases {
		_, err := c.SubmitProof(ctx, k.req)
		st, _ := status.FromError(err)
		msg := st.Message()
		ok := err != nil && st.Code() == k.code && !strings.Contains(msg, "\n") && msg != ""
		for _, s := range k.says {
			ok = ok && strings.Contains(msg, s)
		}
		if ok {
			fmt.Printf("ok: %s: %v: %s\n", k.name, st.Code(), msg)
		} else {
			fmt.Printf("not ok: %s: want %v mentioning %q, got %v: %q\n", k.name, k.code, k.says, st.Code(), msg)
			bad++
		}
	}
	// The same through Prove (Curio's call), and the daemon still serves with nothing queued.
	_, err = c.Prove(ctx, &pb.ProveRequest{Submit: cases[0].req})
	if status.Code(err) != codes.InvalidArgument {
		fmt.Printf("not ok: Prove with an unknown proof_kind: %v\n", err)
		bad++
	}
	gr, err := c.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: goodJob.GetJobId()})
	if err != nil || gr.GetStatus() != pb.AwaitProofResponse_COMPLETED || len(gr.GetProof()) != 192 {
		fmt.Printf("not ok: the good WindowPoSt submitted before the refusals: %v %v %s\n", err, gr.GetStatus(), gr.GetErrorMessage())
		bad++
	} else {
		fmt.Printf("ok: the WindowPoSt in flight during the refusals completed (job %s)\n", goodJob.GetJobId())
		if *goodOut != "" {
			if err := os.WriteFile(*goodOut, gr.GetProof(), 0o644); err != nil {
				fail(2, "%v", err)
			}
		}
	}
	after, err := c.GetStatus(ctx, &pb.GetStatusRequest{})
	if err != nil {
		fmt.Printf("not ok: GetStatus after the bad inputs: %v\n", err)
		return 1
	}
	for _, q := range after.GetQueues() {
		if q.GetPending()+q.GetInProgress() != 0 {
			fmt.Printf("not ok: queue %s holds %d jobs after refused requests\n", q.GetProofKind(), q.GetPending()+q.GetInProgress())
			bad++
		}
	}
	if after.GetTotalProofsFailed() != before.GetTotalProofsFailed() || after.GetTotalProofsCompleted() != before.GetTotalProofsCompleted()+1 {
		fmt.Println("not ok: refused requests changed the job counters (or the good job did not count)")
		bad++
	}
	if bad > 0 {
		return 1
	}
	fmt.Printf("ok: %d bad requests refused before queueing, nothing queued, the job in flight unharmed\n", len(cases)+1)
	return 0
}
