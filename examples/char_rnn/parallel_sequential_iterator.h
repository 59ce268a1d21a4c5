#pragma once
// The iterator of Chainer's examples/ptb/train_ptb.py: batch_size read heads spread
// evenly over one long sequence of ids; each next() returns, for every head, the pair
// (current id, next id) and moves all heads one step. Consecutive batches thus continue
// each other, which is what an RNN that keeps its state between batches needs.

#include <cstdint>
#include <optional>
#include <vector>

#include "core/array.h"
#include "core/error.h"
#include "serializers/serializer.h"
#include "training/iterator.h"

namespace char_rnn {

class ParallelSequentialIterator final : public rensa::training::Iterator {
public:
    // `ids`: a 1-d integer array (the text as ids). ValueError when it has fewer than 2
    // elements or batch_size < 1.
    ParallelSequentialIterator(rensa::Array ids, int64_t batch_size, bool repeat = true)
        : ids_{std::move(ids)}, batch_size_{batch_size}, repeat_{repeat} {
        RENSA_CHECK(ids_.ndim() == 1 && ids_.size() >= 2, ValueError,
                    "ParallelSequentialIterator: need a 1-d sequence of at least 2 ids, got shape ", ids_.shape());
        RENSA_CHECK(batch_size_ >= 1, ValueError, "ParallelSequentialIterator: batch_size must be >= 1, got ",
                    batch_size_);
        const int64_t length = ids_.size();
        for (int64_t i = 0; i < batch_size_; ++i) offsets_.push_back(i * length / batch_size_);
    }

    // nullopt once every position was read (without repeat).
    std::optional<std::vector<rensa::training::Example>> next() override {
        const int64_t length = ids_.size();
        if (!repeat_ && iteration_ * batch_size_ >= length) return std::nullopt;
        previous_epoch_detail_ = epoch_detail();
        std::vector<rensa::training::Example> batch;
        batch.reserve(static_cast<size_t>(batch_size_));
        for (const int64_t offset : offsets_) {
            const int64_t position = (offset + iteration_) % length;
            batch.push_back({.values = {ids_[position], ids_[(position + 1) % length]}, .keys = {}});
        }
        ++iteration_;
        const int64_t epoch = iteration_ * batch_size_ / length;
        is_new_epoch_ = epoch_ < epoch;
        epoch_ = epoch;
        return batch;
    }

    int64_t batch_size() const override { return batch_size_; }
    bool repeat() const override { return repeat_; }
    int64_t epoch() const override { return epoch_; }
    double epoch_detail() const override {
        return static_cast<double>(iteration_ * batch_size_) / static_cast<double>(ids_.size());
    }
    std::optional<double> previous_epoch_detail() const override {
        if (previous_epoch_detail_ < 0) return std::nullopt;
        return previous_epoch_detail_;
    }
    bool is_new_epoch() const override { return is_new_epoch_; }

    void reset() override {
        iteration_ = 0;
        epoch_ = 0;
        is_new_epoch_ = false;
        previous_epoch_detail_ = -1.0;
    }

    // Chainer's keys: "iteration", "epoch", "previous_epoch_detail" (plus "is_new_epoch").
    void serialize(const rensa::serializers::Serializer& serializer) override {
        serializer("iteration", iteration_);
        serializer("epoch", epoch_);
        serializer("is_new_epoch", is_new_epoch_);
        serializer("previous_epoch_detail", previous_epoch_detail_);
    }

private:
    rensa::Array ids_;
    int64_t batch_size_;
    bool repeat_;
    std::vector<int64_t> offsets_;
    int64_t iteration_ = 0;
    int64_t epoch_ = 0;
    bool is_new_epoch_ = false;
    double previous_epoch_detail_ = -1.0;  // < 0: none yet (Chainer's None)
};

}  // namespace char_rnn
