package main

// overtake: PoRep over the wire, and a WinningPoSt overtaking queued PoRep partitions, judged from
// the daemon's own per-partition timings (AwaitProofResponse.partition_timings, accepted_unix_ms),
// not by sleeping. Run against a daemon with one synthesizer and one device:
//
//	curio-client -addr A overtake -fix FIXTURES -out DIR
//
// submits PoRep C2 of sector-1 and sector-2 (Curio's C1 wrappers), then the WinningPoSt of
// winning/, and awaits all three. While they run it reads GetStatus: some device must name one of
// these jobs as current_job_id with its kind, assigned_gpu must name the daemon's devices, and
// queue_position counts the jobs ahead in the engine's order (0, 1, then 0 for the WinningPoSt).
// Checks:
//   - every job COMPLETED; proofs written to DIR/porep-1.bin, porep-2.bin, winning.bin (the caller
//     hands them to fil-oracle verify-seal / verify-post);
//   - every partition has its synthesizer, device and stage times in order;
//   - the WinningPoSt took the one synthesizer next after the PoRep partition it found there, and
//     at least one PoRep partition queued behind it was overtaken: started on its device after the
//     WinningPoSt did. synth_start_ms is stamped when the scheduler dispatches a partition, and the
//     scheduler reads its mailbox in order: the intake answers the WinningPoSt's submit (the daemon
//     stamps accepted_unix_ms) once its ticket is in that mailbox, not once the scheduler has read
//     it, so on a loaded machine one PoRep dispatch may still stamp its start after the WinningPoSt
//     was accepted (seen: porep-1, 34 ms after). So at most one PoRep partition may start between
//     the WinningPoSt's acceptance and its own synthesis; every later one counts as overtaken.
// DIR/timings.json keeps the three responses' timings.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	pb "cuzk.local/curioclient/cuzkpb"
)

type overtakeJob struct {
	name, kind string // kind as GetStatus names it: porep | winning
	req        *pb.SubmitProofRequest
	position   uint32 // the queue_position SubmitProof must answer
	id         string
	assigned   string
	resp       *pb.AwaitProofResponse
	err        error
}

func runOvertake(ctx context.Context, c pb.ProvingEngineClient, args []string) int {
	fs := flag.NewFlagSet("overtake", flag.ExitOnError)
	fix := fs.String("fix", "", "fil-oracle fixtures (sector-1/, sector-2/, winning/)")
	out := fs.String("out", "", "directory for the proofs and timings.json")
	miner := fs.Uint64("miner", 1000, "miner actor id of the sealed sectors")
	parseFlags(fs, args, "fix", "out")
	jobs := []*overtakeJob{
		{name: "porep-1", kind: "porep", req: porepRequest(filepath.Join(*fix, "sector-1", "c1.json"), *miner)},
		{name: "porep-2", kind: "porep", req: porepRequest(filepath.Join(*fix, "sector-2", "c1.json"), *miner), position: 1},
		{name: "winning", kind: "winning", req: postRequest(filepath.Join(*fix, "winning"))},
	}
	jobs[2].req.RequestId = fmt.Sprintf("winning-%d", time.Now().UnixNano())
	bad := 0
	notOK := func(format string, a ...any) {
		fmt.Printf("not ok: "+format+"\n", a...)
		bad++
	}

	before, err := c.GetStatus(ctx, &pb.GetStatusRequest{})
	if err != nil {
		fmt.Printf("not ok: GetStatus: %v\n", err)
		return 1
	}
	devices := map[string]bool{}
	for _, g := range before.GetGpus() {
		devices[g.GetName()] = true
	}
	for _, j := range jobs {
		r, err := c.SubmitProof(ctx, j.req)
		if err != nil {
			fmt.Printf("not ok: SubmitProof %s: %v\n", j.name, err)
			return 1
		}
		j.id, j.assigned = r.GetJobId(), r.GetAssignedGpu()
		fmt.Printf("ok: %s submitted: job %s, queue_position %d, assigned_gpu %q\n", j.name, j.id, r.GetQueuePosition(), j.assigned)
		// Nothing else runs: the first PoRep is first, the second has the first ahead of it, the
		// WinningPoSt (CRITICAL) has nothing ahead of it.
		if r.GetQueuePosition() != j.position {
			notOK("%s: queue_position %d, want %d", j.name, r.GetQueuePosition(), j.position)
		}
		names := strings.Split(j.assigned, ",")
		for _, n := range names {
			if !devices[n] {
				notOK("%s: assigned_gpu %q names %q, not a device of GetStatus", j.name, j.assigned, n)
			}
		}
	}

	// Await all three; meanwhile read GetStatus for the devices' current jobs.
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func(j *overtakeJob) {
			defer wg.Done()
			j.resp, j.err = c.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: j.id})
		}(j)
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	kindOf := map[string]string{}
	for _, j := range jobs {
		kindOf[j.id] = j.kind
	}
	seen := map[string]string{} // job id -> "device (kind)" the first time a device named it
	polls := 0
poll:
	for {
		select {
		case <-finished:
			break poll
		case <-time.After(50 * time.Millisecond):
		}
		s, err := c.GetStatus(ctx, &pb.GetStatusRequest{})
		if err != nil {
			notOK("GetStatus while the jobs run: %v", err)
			break
		}
		polls++
		for _, g := range s.GetGpus() {
			id := g.GetCurrentJobId()
			if id == "" {
				continue
			}
			want, ours := kindOf[id]
			if !ours || g.GetCurrentProofKind() != want {
				notOK("device %s: current_job_id %q current_proof_kind %q (ours: %v, kind %q)", g.GetName(), id,
					g.GetCurrentProofKind(), ours, want)
				continue
			}
			if _, ok := seen[id]; !ok {
				seen[id] = fmt.Sprintf("%s (%s)", g.GetName(), g.GetCurrentProofKind())
			}
		}
	}
	<-finished
	if len(seen) == 0 {
		notOK("in %d GetStatus reads while the jobs ran, no device named one of them as current_job_id", polls)
	}
	for id, where := range seen {
		fmt.Printf("ok: GetStatus showed job %s as current_job_id on device %s\n", id, where)
	}

	record := map[string]any{}
	for _, j := range jobs {
		if j.err != nil {
			notOK("AwaitProof %s: %v", j.name, j.err)
			continue
		}
		r := j.resp
		if r.GetStatus() != pb.AwaitProofResponse_COMPLETED || len(r.GetProof()) == 0 || len(r.GetProof())%192 != 0 {
			notOK("%s (job %s): %v, %d-byte proof: %s", j.name, j.id, r.GetStatus(), len(r.GetProof()), r.GetErrorMessage())
			continue
		}
		if err := os.WriteFile(filepath.Join(*out, j.name+".bin"), r.GetProof(), 0o644); err != nil {
			fail(2, "%v", err)
		}
		if n := len(r.GetPartitionTimings()); n != int(r.GetPartitionsTotal()) || n == 0 {
			notOK("%s: %d partition timings for %d partitions", j.name, n, r.GetPartitionsTotal())
		}
		for _, p := range r.GetPartitionTimings() {
			if p.GetSynthesizer() == "" || !devices[p.GetDevice()] || p.GetSynthStartMs() == 0 ||
				p.GetSynthStartMs() > p.GetSynthEndMs() || p.GetSynthEndMs() > p.GetDeviceStartMs() ||
				p.GetDeviceStartMs() > p.GetDeviceEndMs() {
				notOK("%s partition %d: timings out of order or unnamed: %v", j.name, p.GetPartition(), p)
			}
		}
		record[j.name] = map[string]any{"job_id": j.id, "accepted_unix_ms": r.GetAcceptedUnixMs(),
			"total_ms": r.GetTotalMs(), "partition_timings": r.GetPartitionTimings()}
		fmt.Printf("ok: %s job %s completed: %d-byte proof in %d ms (synthesis %d, device %d)\n", j.name, j.id,
			len(r.GetProof()), r.GetTotalMs(), r.GetSynthesisMs(), r.GetGpuComputeMs())
	}
	if b, err := json.MarshalIndent(record, "", " "); err == nil {
		os.WriteFile(filepath.Join(*out, "timings.json"), b, 0o644)
	}
	if bad > 0 {
		return 1
	}

	win := jobs[2].resp
	var parts []overtakePart
	for _, j := range jobs[:2] {
		for _, p := range j.resp.GetPartitionTimings() {
			parts = append(parts, overtakePart{j.name, p.GetPartition(), p.GetSynthStartMs(), p.GetDeviceStartMs()})
		}
	}
	oks, fails := judgeOvertake(win.GetAcceptedUnixMs(), win.GetPartitionTimings()[0].GetSynthStartMs(),
		win.GetPartitionTimings()[0].GetDeviceStartMs(), parts)
	for _, l := range oks {
		fmt.Println("ok: " + l)
	}
	for _, l := range fails {
		notOK("%s", l)
	}
	if bad > 0 {
		return 1
	}
	fmt.Println("ok: the WinningPoSt overtook every PoRep partition queued behind it")
	return 0
}

// overtakePart: a PoRep partition's stamps as AwaitProof reported them (unix ms).
type overtakePart struct {
	name                 string
	index                uint32
	synthStart, devStart uint64
}

// judgeOvertake: a WinningPoSt accepted at `accepted`, synthesized from `winSynth` and on its device
// at `winStart`, against the PoRep partitions: those it found running, at most one dispatched while
// its ticket waited in the scheduler's mailbox, and those it overtook (at least one, each on its
// device after the WinningPoSt). Returns the lines that hold and those that fail.
func judgeOvertake(accepted, winSynth, winStart uint64, parts []overtakePart) (oks, fails []string) {
	var running, between, overtaken []overtakePart
	for _, x := range parts {
		switch {
		case x.synthStart <= accepted:
			running = append(running, x)
		case x.synthStart <= winSynth:
			between = append(between, x)
		default:
			overtaken = append(overtaken, x)
		}
	}
	sort.Slice(overtaken, func(a, b int) bool { return overtaken[a].devStart < overtaken[b].devStart })
	oks = append(oks, fmt.Sprintf("WinningPoSt accepted at %d, synthesized from +%d ms, on its device at +%d ms; %d PoRep partition(s) had taken the synthesizer before it was accepted",
		accepted, winSynth-accepted, winStart-accepted, len(running)))
	if len(between) > 1 {
		fails = append(fails, fmt.Sprintf("%d PoRep partitions took the synthesizer between the WinningPoSt's acceptance and its synthesis (at most one: a dispatch the scheduler made before reading its ticket): %v", len(between), between))
	}
	for _, b := range between {
		oks = append(oks, fmt.Sprintf("%s partition %d was dispatched %d ms after the WinningPoSt's acceptance, before the scheduler read its ticket",
			b.name, b.index, b.synthStart-accepted))
	}
	if len(overtaken) == 0 {
		fails = append(fails, "no PoRep partition was queued behind the WinningPoSt (does the daemon have one synthesizer?)")
	}
	for _, q := range overtaken {
		if q.devStart > winStart {
			oks = append(oks, fmt.Sprintf("%s partition %d, queued behind the WinningPoSt, started on its device %d ms after it",
				q.name, q.index, q.devStart-winStart))
		} else {
			fails = append(fails, fmt.Sprintf("%s partition %d, queued behind the WinningPoSt, started on its device %d ms before it",
				q.name, q.index, winStart-q.devStart))
		}
	}
	return oks, fails
}
