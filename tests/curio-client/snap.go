package main

import (
	"context"
	"encoding/hex"
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

// abi.RegisteredUpdateProof numbers by the Rust API's names (fil-oracle's update.json uses those).
var updateProofNumbers = map[string]uint64{
	"StackedDrg2KiBV1": 0, "StackedDrg8MiBV1": 1, "StackedDrg512MiBV1": 2, "StackedDrg32GiBV1": 3, "StackedDrg64GiBV1": 4,
}

type updateJSON struct {
	RegisteredProof string   `json:"registered_proof"`
	SectorSize      uint64   `json:"sector_size"`
	CommROld        string   `json:"comm_r_old"`
	CommRNew        string   `json:"comm_r_new"`
	CommDNew        string   `json:"comm_d_new"`
	Vanilla         []string `json:"vanilla"`
}

// The SubmitProofRequest Curio sends for a SnapDeals update, from fil-oracle's update.json in dir: the
// three commitments raw, one bincode PartitionProof per partition.
func snapRequest(dir string) *pb.SubmitProofRequest {
	var u updateJSON
	readJSON(filepath.Join(dir, "update.json"), &u)
	n, ok := updateProofNumbers[u.RegisteredProof]
	if !ok {
		fail(2, "%s/update.json: registered_proof: unknown %q", dir, u.RegisteredProof)
	}
	comm := func(field, text string) []byte {
		b, err := hex.DecodeString(text)
		if err != nil || len(b) != 32 {
			fail(2, "%s/update.json: %s: not 64 hex digits", dir, field)
		}
		return b
	}
	req := &pb.SubmitProofRequest{
		ProofKind: pb.ProofKind_SNAP_DEALS_UPDATE, SectorSize: u.SectorSize, RegisteredProof: n, Priority: pb.Priority_NORMAL,
		CommROld: comm("comm_r_old", u.CommROld), CommRNew: comm("comm_r_new", u.CommRNew), CommDNew: comm("comm_d_new", u.CommDNew),
	}
	for _, v := range u.Vanilla {
		b, err := os.ReadFile(filepath.Join(dir, v))
		if err != nil {
			fail(2, "%v", err)
		}
		req.VanillaProofs = append(req.VanillaProofs, b)
	}
	return req
}

// snap: one SnapDeals update submitted as Curio does (SubmitProof, then AwaitProof), and while it is
// in flight every malformed SnapDeals field the daemon checks: each refused with INVALID_ARGUMENT
// naming the field, in one line. The update's proof is written to -out.
func runSnap(ctx context.Context, c pb.ProvingEngineClient, args []string) int {
	fs := flag.NewFlagSet("snap", flag.ExitOnError)
	dir := fs.String("dir", "", "fil-oracle update output (update.json, vanilla-*.bin)")
	out := fs.String("out", "", "where the proof goes")
	parseFlags(fs, args, "dir", "out")
	good := snapRequest(*dir)
	good.RequestId = fmt.Sprintf("snap-%d", time.Now().UnixNano())
	sub, err := c.SubmitProof(ctx, good)
	if err != nil {
		fmt.Printf("not ok: SubmitProof of a SnapDeals update: %v\n", err)
		return 1
	}

	var cases []badCase
	r := snapRequest(*dir)
	r.CommROld = r.CommROld[:31]
	cases = append(cases, badCase{"comm_r_old of 31 bytes", r, codes.InvalidArgument, []string{"comm_r_old", "31 bytes"}})
	r = snapRequest(*dir)
	r.CommRNew = append(r.CommRNew, 0)
	cases = append(cases, badCase{"comm_r_new of 33 bytes", r, codes.InvalidArgument, []string{"comm_r_new", "33 bytes"}})
	r = snapRequest(*dir)
	r.CommDNew = nil
	cases = append(cases, badCase{"no comm_d_new", r, codes.InvalidArgument, []string{"comm_d_new", "0 bytes"}})
	r = snapRequest(*dir)
	r.CommDNew[31] = 0xff
	cases = append(cases, badCase{"comm_d_new that is not a field element", r, codes.InvalidArgument, []string{"comm_d_new"}})
	r = snapRequest(*dir)
	r.VanillaProofs = append(r.VanillaProofs, r.VanillaProofs[0])
	cases = append(cases, badCase{"a PartitionProof more than the sector size has partitions", r, codes.InvalidArgument,
		[]string{"vanilla_proofs", fmt.Sprint(len(r.VanillaProofs)), "partitions"}})
	r = snapRequest(*dir)
	r.VanillaProofs = nil
	cases = append(cases, badCase{"no PartitionProofs", r, codes.InvalidArgument, []string{"vanilla_proofs", "empty"}})
	r = snapRequest(*dir)
	r.VanillaProofs[0] = r.VanillaProofs[0][:len(r.VanillaProofs[0])/2]
	cases = append(cases, badCase{"a PartitionProof that does not parse", r, codes.InvalidArgument, []string{"vanilla_proofs[0]"}})
	r = snapRequest(*dir)
	r.CommROld, r.CommRNew = r.CommRNew, r.CommROld
	cases = append(cases, badCase{"a PartitionProof whose paths do not open to comm_r_old", r, codes.InvalidArgument,
		[]string{"vanilla_proofs[0]", "comm_r_old"}})
	r = snapRequest(*dir)
	r.VanillaProof = []byte("{}")
	cases = append(cases, badCase{"a vanilla_proof (PoRep's field)", r, codes.InvalidArgument, []string{"vanilla_proof", "vanilla_proofs"}})
	r = snapRequest(*dir)
	r.RegisteredProof = 3 // StackedDrg32GiBV1
	cases = append(cases, badCase{"registered_proof for 32 GiB, sector_size 2 KiB", r, codes.InvalidArgument,
		[]string{"sector_size", "2048", "StackedDrg32GiBV1"}})
	r = snapRequest(*dir)
	r.RegisteredProof = 7
	cases = append(cases, badCase{"registered_proof that is no update proof", r, codes.InvalidArgument, []string{"registered_proof", "7"}})

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
	r2, err := c.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: sub.GetJobId()})
	if err != nil {
		fmt.Printf("not ok: AwaitProof: %v\n", err)
		return 1
	}
	if !keepProof("AwaitProof", r2, *out) {
		return 1
	}
	fmt.Printf("ok: SnapDeals job %s, in flight during the refusals: %d-byte proof in %d ms (queue %d, params %d, synthesis %d, device %d) -> %s\n",
		sub.GetJobId(), len(r2.GetProof()), r2.GetTotalMs(), r2.GetQueueWaitMs(), r2.GetSrsLoadMs(), r2.GetSynthesisMs(),
		r2.GetGpuComputeMs(), *out)
	if bad > 0 {
		return 1
	}
	return 0
}
