// Non-blocking all-reduce of the MPI communicators.
//
// Note [Checked iallreduce]: a non-blocking all-reduce must not wait for the other ranks when it
// starts (a rank may start one, then answer a recv that another rank needs before that rank starts
// its own), yet its data may not go out before the signature check passed (ranks that disagree on
// the size would exchange messages of different lengths; Note [Signature check]). So the check's
// envelope is posted (MPI_Iallreduce) when the request starts, on the communicator's handle, in
// program order with every other collective there; the data go on a lane of their own (a second
// communicator, made by the first request: collective), posted in the order the requests started,
// each once its envelope completed (test() and wait() of any request of the lane post what they
// can). A request whose envelope shows a disagreement posts instead, in its place on the lane, an
// MPI_Iallgather of every rank's signature, and its test() or wait() raises the MpiError that
// names the difference, on every rank. A buffer of up to kInlineBytes travels inside its envelope
// and posts nothing on the lane.

#include "distributed/communicators/detail/iallreduce.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "distributed/communicators/detail/mpi_chunks.h"
#include "distributed/communicators/detail/reduce_ops.h"
#include "distributed/detail/signature_check.h"

namespace rensa::distributed::detail {

class CheckedRequest;

class IallreduceLane {
public:
    explicit IallreduceLane(CommHandle& handle) : data_{handle.split(0, handle.rank())} {}
    CommHandle& data() const { return *data_; }
    void enqueue(CheckedRequest* request) { waiting_.push_back(request); }
    // Posts, front to back, the lane part of every request whose envelope completed.
    void advance();

private:
    std::shared_ptr<CommHandle> data_;
    std::deque<CheckedRequest*> waiting_;  // started, lane part not posted yet, in start order
};

namespace {

// One MPI_Iallreduce per chunk of `buffer` over `comm`.
std::vector<MPI_Request> post_chunks(MPI_Comm comm, const Array& buffer, ReduceOp op) {
    std::vector<MPI_Request> requests;
    const MPI_Datatype type = mpi_datatype(buffer.dtype());
    const MPI_Op mpi_op_ = mpi_op(mpi_reduce(op), buffer.dtype());
    const int64_t step = chunk_elements(buffer.itemsize());
    auto* bytes = static_cast<char*>(buffer.raw_data());
    for (int64_t begin = 0; begin < buffer.size(); begin += step) {
        const int n = static_cast<int>(std::min(step, buffer.size() - begin));
        requests.push_back(MPI_REQUEST_NULL);
        check_mpi(
            MPI_Iallreduce(MPI_IN_PLACE, bytes + begin * buffer.itemsize(), n, type, mpi_op_, comm, &requests.back()),
            "MPI_Iallreduce");
    }
    return requests;
}

bool test_all(std::vector<MPI_Request>& requests) {
    int flag = 0;
    check_mpi(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag, MPI_STATUSES_IGNORE),
              "MPI_Testall");
    return flag != 0;
}

// Spins briefly, then yields, then naps (ranks may outnumber cores), until `done`.
template <class Done>
void poll_until(Done&& done) {
    for (int64_t round = 0; !done(); ++round) {
        if (round >= 4000) {
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        } else if (round >= 200) {
            std::this_thread::yield();
        }
    }
}

// Without the check: the chunks at once, on the handle itself.
class PlainRequest final : public Request {
public:
    PlainRequest(std::shared_ptr<CommHandle> handle, Array buffer, ReduceOp op, const CallSignature& signature)
        : handle_{std::move(handle)}, buffer_{std::move(buffer)}, op_{op} {
        guard_ = std::make_unique<OpGuard>(*handle_, signature);
        requests_ = post_chunks(handle_->comm(), buffer_, op_);
    }
    ~PlainRequest() override {
        if (done_) return;
        try {
            wait();
        } catch (const std::exception& e) {
            abort_job(std::string("iallreduce: ") + e.what());
        }
    }
    void wait() override {
        if (done_) return;
        check_mpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
                  "MPI_Waitall");
        finish();
    }
    bool test() override {
        if (!done_ && test_all(requests_)) finish();
        return done_;
    }

private:
    void finish() {
        done_ = true;
        guard_.reset();
        if (op_ == ReduceOp::kMean) divide_inplace(buffer_, handle_->size());
    }
    std::shared_ptr<CommHandle> handle_;
    Array buffer_;
    ReduceOp op_;
    std::unique_ptr<OpGuard> guard_;
    std::vector<MPI_Request> requests_;
    bool done_ = false;
};

}  // namespace

// See Note [Checked iallreduce].
class CheckedRequest final : public Request {
public:
    CheckedRequest(std::shared_ptr<CommHandle> handle, std::shared_ptr<IallreduceLane> lane, Array buffer, ReduceOp op,
                   const CallSignature& signature)
        : handle_{std::move(handle)},
          lane_{std::move(lane)},
          buffer_{std::move(buffer)},
          op_{op},
          signature_{signature} {
        guard_ = std::make_unique<OpGuard>(*handle_, signature_);
        sequence_ = guard_->sequence();
        envelope_ = make_envelope(signature_);
        inline_ = put_inline(envelope_, buffer_.raw_data(), buffer_.dtype(), buffer_.size(), mpi_reduce(op_));
        start_envelope(*handle_, envelope_, &envelope_request_);
        lane_->enqueue(this);
    }
    ~CheckedRequest() override {
        if (stage_ == Stage::kDone) return;
        try {
            wait();
        } catch (const std::exception& e) {
            abort_job(std::string("iallreduce: ") + e.what());
        }
    }
    void wait() override {
        poll_until([this] { return test(); });
    }
    bool test() override {
        if (stage_ == Stage::kDone) return true;
        lane_->advance();
        if (stage_ == Stage::kData && test_all(data_requests_)) finish();
        if (stage_ == Stage::kExplain && test_all(data_requests_)) {
            finish();
            throw_mismatch(*handle_, sequence_, signature_, entries_);
        }
        return stage_ == Stage::kDone;
    }

    // The lane's part: true once posted (the envelope completed), false while it is in flight.
    bool post() {
        int flag = 0;
        check_mpi(MPI_Test(&envelope_request_, &flag, MPI_STATUS_IGNORE), "MPI_Test");
        if (flag == 0) return false;
        if (!agreed(envelope_)) {  // every rank gets here on this request: name the difference
            const SignatureEntry mine = make_entry(signature_, signature_digest(signature_));
            entries_.resize(static_cast<size_t>(handle_->size()));
            data_requests_.assign(1, MPI_REQUEST_NULL);
            check_mpi(MPI_Iallgather(&mine, sizeof mine, MPI_BYTE, entries_.data(), sizeof mine, MPI_BYTE,
                                     lane_->data().comm(), data_requests_.data()),
                      "signature check: MPI_Iallgather");
            stage_ = Stage::kExplain;
        } else if (inline_) {
            std::memcpy(buffer_.raw_data(), envelope_.payload, static_cast<size_t>(buffer_.nbytes()));
            stage_ = Stage::kData;  // nothing in flight: the next test finishes
        } else {
            data_requests_ = post_chunks(lane_->data().comm(), buffer_, op_);
            stage_ = Stage::kData;
        }
        return true;
    }

private:
    enum class Stage { kEnvelope, kData, kExplain, kDone };
    void finish() {
        stage_ = Stage::kDone;
        guard_.reset();
        if (op_ == ReduceOp::kMean && entries_.empty()) divide_inplace(buffer_, handle_->size());
    }
    std::shared_ptr<CommHandle> handle_;
    std::shared_ptr<IallreduceLane> lane_;
    Array buffer_;
    ReduceOp op_;
    CallSignature signature_;
    std::unique_ptr<OpGuard> guard_;
    int64_t sequence_ = -1;
    Envelope envelope_;
    bool inline_ = false;
    MPI_Request envelope_request_ = MPI_REQUEST_NULL;
    std::vector<MPI_Request> data_requests_;
    std::vector<SignatureEntry> entries_;  // the explanation's exchange
    Stage stage_ = Stage::kEnvelope;
};

void IallreduceLane::advance() {
    while (!waiting_.empty() && waiting_.front()->post()) waiting_.pop_front();
}

std::unique_ptr<Request> start_iallreduce(const std::shared_ptr<CommHandle>& handle,
                                          std::shared_ptr<IallreduceLane>& lane, const Array& buffer, ReduceOp op) {
    const CallSignature signature{
        .op = "iallreduce", .dtype = buffer.dtype(), .shape = buffer.shape(), .reduce = static_cast<int>(op)};
    if (!signature_check_enabled() || handle->size() == 1) {
        return std::make_unique<PlainRequest>(handle, buffer, op, signature);
    }
    if (!lane) lane = std::make_shared<IallreduceLane>(*handle);
    return std::make_unique<CheckedRequest>(handle, lane, buffer, op, signature);
}

}  // namespace rensa::distributed::detail
