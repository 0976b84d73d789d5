// curio-client: a stand-in for Curio's cuzk client (curio lib/cuzk, lib/ffi/cuzk_funcs.go), built
// on stubs that protoc generates at test time from cuzk's apps/proto/cuzk/v1/proving.proto into
// ./cuzkpb. It speaks to a cuzk-daemon the way Curio does (Prove / SubmitProof + AwaitProof with
// proof_kind, registered_proof, vanilla proofs) and is also an operator's example of the contract.
//
//	curio-client contract                      the Curio fields keep the Rust contract's numbers and types
//	curio-client -addr A status                GetStatus: queues (Curio's back-pressure sum), devices, keys
//	curio-client -addr A post -dir D -out F    WindowPoSt / WinningPoSt from fil-oracle's post.json + vanilla-*.bin
//	curio-client -addr A porep -c1 F -miner M -out F   PoRep C2 from Curio's C1 wrapper JSON
//	curio-client -addr A bad-inputs -sample D  each malformed request gets its gRPC code and a one-line message
//	curio-client -addr A cancel -dir D         submit a WindowPoSt, cancel it, await: CANCELLED (or done first)
//	curio-client -addr A submit -dir D         SubmitProof only; prints the job id
//	curio-client -addr A await -job J -out F   AwaitProof to the end; writes the proof
//	curio-client -addr A overtake -fix D -out O   two PoReps then a WinningPoSt: it overtakes the queued
//	                                           PoRep partitions (the daemon's timings); status names them
//
// Exit status: 0 success, 1 a check failed, 2 unusable input.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "cuzk.local/curioclient/cuzkpb"
)

func usage() {
	fmt.Fprintln(os.Stderr, "usage: curio-client [-addr HOST:PORT|unix:PATH] contract|status|post|porep|bad-inputs|cancel|submit|await|overtake [flags]")
	os.Exit(2)
}

func dial(addr string) (pb.ProvingEngineClient, func()) {
	target := addr
	if !strings.Contains(target, "://") && !strings.HasPrefix(target, "unix:") {
		target = "dns:///" + target
	}
	conn, err := grpc.NewClient(target,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)))
	if err != nil {
		fail(2, "connect %s: %v", addr, err)
	}
	return pb.NewProvingEngineClient(conn), func() { conn.Close() }
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "curio-client: "+format+"\n", args...)
	os.Exit(code)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9821", "the daemon's gRPC address")
	timeout := flag.Duration("timeout", 10*time.Minute, "deadline of each proving call")
	flag.Parse()
	if flag.NArg() < 1 {
		usage()
	}
	cmd, args := flag.Arg(0), flag.Args()[1:]
	if cmd == "contract" {
		os.Exit(checkContract())
	}
	client, closeFn := dial(*addr)
	defer closeFn()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var rc int
	switch cmd {
	case "status":
		rc = runStatus(ctx, client)
	case "post":
		rc = runPost(ctx, client, args)
	case "porep":
		rc = runPoRep(ctx, client, args)
	case "bad-inputs":
		rc = runBadInputs(ctx, client, args)
	case "cancel":
		rc = runCancel(ctx, client, args)
	case "submit":
		rc = runSubmit(ctx, client, args)
	case "await":
		rc = runAwait(ctx, client, args)
	case "overtake":
		rc = runOvertake(ctx, client, args)
	default:
		usage()
	}
	os.Exit(rc)
}
