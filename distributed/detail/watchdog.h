#pragma once
// The watchdog (internal): one thread per process that watches every guarded operation
// and talks to the other ranks' watchdogs over its own dup of MPI_COMM_WORLD.
// See Note [Faults] in distributed/detail/mpi_runtime.h.
//
// Note [Watchdog protocol]: messages on the control communicator are small int64 arrays:
//   kQuery  {nonce, handle id}            -> kReply {nonce, handle id, entered or -1}
//   kExit   {exiting, (handle id, entered)*}  -> kExitAck {peer is exiting too}
// The watchdog thread is the only receiver on the control communicator (MPI_Improbe +
// MPI_Mrecv, never a blocking call); sends are MPI_Isend, tested on later polls.
// At exit every rank sends kExit to the ranks not known to have exited and waits (at most
// about 2 s) for their acks; an ack that says "exiting too" means that rank's own kExit
// was sent before the ack, so it is drained and acked before this rank finalises.

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
// The exit protocol above, then stops and joins the thread. Called by the atexit finaliser.
void exit_notice_and_stop();
// Stops and joins the thread without notices (MPI not ours, or already finalised).
void stop();

}  // namespace rensa::distributed::detail::watchdog
