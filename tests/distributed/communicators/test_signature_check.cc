// The always-on signature check (Note [Signature check] in distributed/detail/signature_check.cc):
// ranks that call different collectives all raise MpiError naming both signatures, without debug
// mode, and stay in step; the reductions that ride inside the check's envelope are exact.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "distributed/detail/mpi_runtime.h"
#include "distributed/detail/signature_check.h"
#include "links/chain.h"
#include "tests/distributed/communicators/comm_testing.h"

namespace rensa::distributed {
namespace {

using testing::comm;
using testing::mismatch;
using testing::value_of;
using testing::values_of;

constexpr const char* kKinds[] = {"naive", "flat"};

// The MpiError `call` raised here ("" when none).
std::string error_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const MpiError& e) {
        return e.what();
    }
    return {};
}

Array ones(int64_t n, Dtype dtype = Dtype::kFloat32) {
    return rensa::testing::make_array(std::vector<double>(static_cast<size_t>(n), 1.0), {n}, dtype);
}

// After a failed check the ranks are still in step: a matching all-reduce works on every rank.
std::string in_step(Communicator& c) { return mismatch(c.allreduce(ones(3)), std::vector<double>(3, c.size()), {3}); }

// What every rank must have raised: `rank 1 called <theirs> but rank 0 called <ours>`.
void check_error(const Communicator& c, const std::string& error, const std::string& theirs, const std::string& ours) {
    INFO(error);
    if (c.size() == 1) {
        CHECK(error.empty());
    } else {
        CHECK_THAT(error, Catch::Contains("rank 1 called " + theirs + " but rank 0 called " + ours));
    }
}

TEST_CASE("signature check: float32 x4 against float64 x2 raises on every rank", "[distributed][communicators]") {
    REQUIRE_FALSE(detail::debug_enabled());
    for (const char* kind : kKinds) {
        Communicator& c = comm(kind);
        INFO(kind);
        // The same 16 bytes: without the check both ranks got garbage and went on.
        const Array x = c.rank() == 1 ? ones(2, Dtype::kFloat64) : ones(4);
        const std::string error = error_of([&] { (void)c.allreduce(x); });
        check_error(c, error, "allreduce(float64, (2,), sum)", "allreduce(float32, (4,), sum)");
        CHECK(in_step(c) == "");
    }
}

TEST_CASE("signature check: (3,) against (4,) raises on every rank, inline and not", "[distributed][communicators]") {
    for (const char* kind : kKinds) {
        Communicator& c = comm(kind);
        for (const int64_t n : {int64_t{3}, int64_t{3000}}) {
            INFO(kind << " n=" << n);
            const Array x = ones(c.rank() == 1 ? n : n + 1);
            const std::string error = error_of([&] { (void)c.allreduce(x); });
            check_error(c, error, "allreduce(float32, (" + std::to_string(n) + ",), sum)",
                        "allreduce(float32, (" + std::to_string(n + 1) + ",), sum)");
            const Array buffer = ones(c.rank() == 1 ? n : n + 1);
            check_error(c, error_of([&] { c.allreduce_inplace(buffer); }),
                        "allreduce_inplace(float32, (" + std::to_string(n) + ",), sum)",
                        "allreduce_inplace(float32, (" + std::to_string(n + 1) + ",), sum)");
            check_error(c, error_of([&] { c.iallreduce_inplace(buffer)->wait(); }),
                        "iallreduce(float32, (" + std::to_string(n) + ",), sum)",
                        "iallreduce(float32, (" + std::to_string(n + 1) + ",), sum)");
            CHECK(in_step(c) == "");
        }
    }
}

TEST_CASE("signature check: another reduction, operation or root raises on every rank",
          "[distributed][communicators]") {
    Communicator& c = comm("flat");
    const bool odd = c.rank() == 1;
    check_error(c, error_of([&] { (void)c.allreduce(ones(2), odd ? ReduceOp::kMax : ReduceOp::kSum); }),
                "allreduce(float32, (2,), max)", "allreduce(float32, (2,), sum)");
    check_error(c, error_of([&] { (void)c.allreduce(ones(2), odd ? ReduceOp::kMean : ReduceOp::kSum); }),
                "allreduce(float32, (2,), mean)", "allreduce(float32, (2,), sum)");
    check_error(c, error_of([&] { odd ? (void)c.bcast(ones(2), 0) : (void)c.allreduce(ones(2)); }), "bcast(root=0)",
                "allreduce(float32, (2,), sum)");
    check_error(c, error_of([&] { (void)c.bcast(ones(2), odd ? 1 : 0); }), "bcast(root=1)", "bcast(root=0)");
    check_error(c, error_of([&] { odd ? c.barrier() : (void)c.allgather(ones(2)); }), "barrier()", "allgather()");
    check_error(c, error_of([&] { odd ? (void)c.gather_obj("x", 0) : (void)c.bcast_obj("x", 0); }),
                "gather_obj(root=0)", "bcast_obj(root=0)");
    const std::vector<Array> one_each(static_cast<size_t>(c.size()), ones(1));
    check_error(c, error_of([&] { odd ? (void)c.scatter({}, 0) : (void)c.alltoall(one_each); }), "scatter(root=0)",
                "alltoall()");
    CHECK(in_step(c) == "");
}

// Note [Checked iallreduce]: the check's envelope does not make the start wait for the other ranks.
TEST_CASE("signature check: iallreduce_inplace starts without waiting for the other ranks",
          "[distributed][communicators]") {
    Communicator& c = comm("flat");
    const Array big = ones(3000), small = ones(2);
    std::unique_ptr<Request> first, second;
    if (c.rank() == 1) (void)c.recv(0);  // rank 0 sends only after starting both
    first = c.iallreduce_inplace(big);
    second = c.iallreduce_inplace(small, ReduceOp::kMean);
    if (c.rank() == 0 && c.size() > 1) c.send(ones(1), 1);
    second->wait();
    first->wait();
    CHECK(mismatch(big, std::vector<double>(3000, c.size()), {3000}) == "");
    CHECK(mismatch(small, {1.0, 1.0}, {2}) == "");
}

TEST_CASE("signature check: shapes with as many elements agree", "[distributed][communicators]") {
    Communicator& c = comm("flat");
    const Shape shape = c.rank() == 1 ? Shape{4} : Shape{2, 2};
    const Array x = rensa::testing::make_array({1, 2, 3, 4}, shape, Dtype::kFloat32);
    const Array y = c.allreduce(x);
    CHECK(mismatch(y, {1.0 * c.size(), 2.0 * c.size(), 3.0 * c.size(), 4.0 * c.size()}, shape) == "");
}

// The reductions that travel inside the envelope (up to 32 bytes) and just past it.
TEST_CASE("signature check: small reductions of every dtype and op are exact", "[distributed][communicators]") {
    Communicator& c = comm("flat");
    for (const Dtype dtype : kAllDtypes) {
        for (const ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMax, ReduceOp::kMin}) {
            if (dtype == Dtype::kBool && (op == ReduceOp::kSum || op == ReduceOp::kMean)) continue;
            const int64_t fit = detail::kInlineBytes / itemsize(dtype);
            for (const int64_t n : {int64_t{1}, fit, fit + 1}) {
                std::vector<double> expected;
                for (int64_t i = 0; i < n; ++i) {
                    double sum = 0, hi = -1e300, lo = 1e300;
                    for (int r = 0; r < c.size(); ++r) {
                        sum += value_of(dtype, r, i);
                        hi = std::max(hi, value_of(dtype, r, i));
                        lo = std::min(lo, value_of(dtype, r, i));
                    }
                    const double mean = is_float(dtype) ? sum / c.size() : std::floor(sum / c.size());
                    expected.push_back(op == ReduceOp::kSum    ? sum
                                       : op == ReduceOp::kMean ? mean
                                       : op == ReduceOp::kMax  ? hi
                                                               : lo);
                }
                const Array x = rensa::testing::make_array(values_of(dtype, c.rank(), n), {n}, dtype);
                INFO(dtype << " " << to_string(op) << " n=" << n);
                CHECK(mismatch(c.allreduce(x, op), expected, {n}) == "");
                const Array buffer = x.copy();
                c.iallreduce_inplace(buffer, op)->wait();
                CHECK(mismatch(buffer, expected, {n}) == "");
            }
        }
    }
    CHECK(c.allreduce_obj(2.5, ReduceOp::kSum) == 2.5 * c.size());
}

TEST_CASE("signature check: differing models raise in multi_node_mean_grad", "[distributed][communicators]") {
    Communicator& c = comm("flat");
    auto model = std::make_shared<links::Chain>();
    model->add_param("W", Shape{3, c.rank() == 1 ? 5 : 4}, Dtype::kFloat32);
    model->add_param("b", Shape{3}, Dtype::kFloat32);
    const std::string error = error_of([&] { c.multi_node_mean_grad(*model, /*zero_fill=*/true); });
    check_error(c, error, "bucket_setup(float32, (1, 18))", "bucket_setup(float32, (1, 15))");
    CHECK(in_step(c) == "");
}

}  // namespace
}  // namespace rensa::distributed
