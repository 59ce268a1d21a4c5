#include <catch2/catch.hpp>

#include "distributed/allreduce_persistent.h"
#include "links/chain.h"
#include "links/normalization/batch_normalization.h"
#include "tests/distributed/training/mn_training_testing.h"
#include "tests/testing/testing.h"

namespace {

using namespace rensa;
using rensa::testing::mn_comm;

// Rank r's statistics: avg_mean[j] = 10 * layer + r + j, avg_var[j] = (r + 1) * (j + 1).
std::shared_ptr<links::Chain> bn_chain(int rank) {
    auto chain = std::make_shared<links::Chain>();
    for (int layer = 0; layer < 2; ++layer) {
        auto bn = chain->add_link("bn" + std::to_string(layer), std::make_shared<links::BatchNormalization>(3));
        std::vector<double> mean, var;
        for (int j = 0; j < 3; ++j) {
            mean.push_back(10.0 * layer + rank + j);
            var.push_back(double(rank + 1) * (j + 1));
        }
        bn->avg_mean.assign(testing::make_array(mean, Shape{3}, Dtype::kFloat32));
        bn->avg_var.assign(testing::make_array(var, Shape{3}, Dtype::kFloat32));
        bn->N = 5 + rank;
    }
    return chain;
}

}  // namespace

TEST_CASE("mn training: allreduce_persistent averages running statistics", "[distributed][training]") {
    const auto& comm = mn_comm();
    const int size = comm->size();
    const auto chain = bn_chain(comm->rank());
    auto& bn1 = dynamic_cast<links::BatchNormalization&>((*chain)["bn1"]);
    const Array alias = bn1.avg_mean;  // updated in place: aliases see the mean
    distributed::allreduce_persistent(*chain, *comm);
    const double mean_rank = double(size - 1) / 2.0;
    for (int layer = 0; layer < 2; ++layer) {
        auto& bn = dynamic_cast<links::BatchNormalization&>((*chain)["bn" + std::to_string(layer)]);
        std::vector<double> mean, var;
        for (int j = 0; j < 3; ++j) {
            mean.push_back(10.0 * layer + mean_rank + j);
            var.push_back((mean_rank + 1) * (j + 1));
        }
        testing::check_allclose(bn.avg_mean, mean, Shape{3}, {1e-6, 1e-6});
        testing::check_allclose(bn.avg_var, var, Shape{3}, {1e-6, 1e-6});
        CHECK(bn.N == 5 + comm->rank());  // integer persistents are left alone
    }
    testing::check_allclose(alias, bn1.avg_mean);
    distributed::AllreducePersistent extension{chain, comm};
    CHECK(extension.priority() == training::kPriorityWriter + 1);
    CHECK(extension.default_trigger().get()->get_training_length() ==
          std::optional<std::pair<int64_t, std::string>>{{1, "epoch"}});
}

TEST_CASE("mn training: allreduce_persistent rejects differing models", "[distributed][training]") {
    const auto& comm = mn_comm();
    auto chain = bn_chain(comm->rank());
    // The last rank's second layer has another size.
    if (comm->rank() == comm->size() - 1) {
        chain = std::make_shared<links::Chain>();
        chain->add_link("bn0", std::make_shared<links::BatchNormalization>(3));
        chain->add_link("bn1", std::make_shared<links::BatchNormalization>(4));
    }
    if (comm->size() > 1) {
        CHECK_THROWS_AS(distributed::allreduce_persistent(*chain, *comm), distributed::MpiError);
    } else {
        CHECK_NOTHROW(distributed::allreduce_persistent(*chain, *comm));
    }
    CHECK_THROWS_AS(distributed::AllreducePersistent(nullptr, comm), ValueError);
}
