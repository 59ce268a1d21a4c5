#pragma once
// The watchdog (internal): one thread per process that watches every guarded operation
// and talks to the other ranks' watchdogs over its own dup of MPI_COMM_WORLD.
// See Note [Faults] in distributed/detail/mpi_runtime.h.
//
// Note [Watchdog protocol]: messages on the control communicator are small int64 arrays:
//   kQuery  {nonce, handle id}            -> kReply {nonce, handle id, entered or -1}
//   kExit   {exiting, (handle id, entered)*}  -> kExitAck {peer is exiting too}
// The watchdog thread (at exit, once it stopped, the exiting thread) is the only receiver on the
// control communicator (MPI_Improbe + MPI_Mrecv, never a blocking call); sends are MPI_Isend,
// tested on later polls.
// Exit is collective, as MPI_Finalize is (the exit protocol runs just before it, when MPI is ours;
// a program that finalises MPI itself gets no protocol): the thread stops, and the exiting thread sends kExit to every
// other rank and polls the control communicator itself until every rank has acked its notice and sent its own (acked in
// turn). A rank that ends first thus waits for the others, as MPI_Finalize would, but before any connection closes, and
// it keeps answering queries meanwhile. This is what keeps the network path alive: MPICH 4.0's ch4:ucx over TCP closes
// its connections in MPI_Finalize before its closing barrier, and a rank that makes progress after a peer closed, or
// that reads data after its sender closed, then hangs in its own MPI_Finalize (openucx/ucx#8738). For the same reason
// the thread polls without sleeping for the first kExitSpin, and a rank whose last message is an ack nothing confirms
// (two ranks exiting together) waits kExitLinger before finalising.

#include <cstdint>
#include <vector>

#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed::detail::watchdog {

// Dups MPI_COMM_WORLD (collective) and starts the thread. Called once by ensure_initialized.
void start();
// Registers a handle (by its id, equal on every member) and its members' world ranks.
void register_handle(int id, const std::vector<int>& world_ranks);
// The handle is gone: its final count is kept for exit notices; the record stops being watched.
void retire_handle(int id);
// One guarded operation begins / ends; `token` identifies it (the OpGuard's address).
// seq < 0: point to point (watched, no sequence number).
void begin_op(int id, const void* token, int64_t seq, const CallSignature& signature);
void end_op(int id, const void* token);
// Aborts the job at once if a member of handle `id` already exited before operation `seq`.
void check_exited(int id, int64_t seq, const CallSignature& signature);
// Stops and joins the thread, then runs the exit protocol above (once; not at all when the watchdog
// never started). Called by the atexit finaliser.
void exit_notice_and_stop();
// Stops and joins the thread without notices (MPI not ours, or already finalised).
void stop();

}  // namespace rensa::distributed::detail::watchdog
