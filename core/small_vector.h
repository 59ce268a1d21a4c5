#pragma once
// SmallVector: a fixed-capacity inline vector (no heap), used for shapes, strides and
// axes, whose rank is at most kMaxNdim. Exceeding the capacity throws DimensionError.

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <iterator>

#include "core/error.h"

namespace rensa {

inline constexpr int kMaxNdim = 8;

template <class T, int N = kMaxNdim>
class SmallVector {
public:
    using value_type = T;
    using iterator = T*;
    using const_iterator = const T*;

    SmallVector() = default;
    SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
    template <class It>
    requires(!std::integral<It>) SmallVector(It first, It last) { assign(first, last); }
    explicit SmallVector(int count, T value = T{}) {
        check_capacity(count);
        size_ = count;
        std::fill(begin(), end(), value);
    }

    int size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T* data() { return data_.data(); }
    const T* data() const { return data_.data(); }
    T* begin() { return data_.data(); }
    T* end() { return data_.data() + size_; }
    const T* begin() const { return data_.data(); }
    const T* end() const { return data_.data() + size_; }
    T& operator[](int i) { return data_[static_cast<size_t>(i)]; }
    const T& operator[](int i) const { return data_[static_cast<size_t>(i)]; }
    T& back() { return data_[static_cast<size_t>(size_ - 1)]; }
    const T& back() const { return data_[static_cast<size_t>(size_ - 1)]; }

    void push_back(T value) {
        check_capacity(size_ + 1);
        data_[static_cast<size_t>(size_++)] = value;
    }
    void pop_back() { --size_; }
    void clear() { size_ = 0; }
    void resize(int count, T value = T{}) {
        check_capacity(count);
        for (int i = size_; i < count; ++i) data_[static_cast<size_t>(i)] = value;
        size_ = count;
    }
    void insert(int pos, T value) {
        check_capacity(size_ + 1);
        for (int i = size_; i > pos; --i) data_[static_cast<size_t>(i)] = data_[static_cast<size_t>(i - 1)];
        data_[static_cast<size_t>(pos)] = value;
        ++size_;
    }
    void erase(int pos) {
        for (int i = pos; i + 1 < size_; ++i) data_[static_cast<size_t>(i)] = data_[static_cast<size_t>(i + 1)];
        --size_;
    }

    friend bool operator==(const SmallVector& a, const SmallVector& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    template <class It>
    void assign(It first, It last) {
        const auto count = static_cast<int>(std::distance(first, last));
        check_capacity(count);
        std::copy(first, last, begin());
        size_ = count;
    }
    static void check_capacity(int count) {
        RENSA_CHECK(count <= N, DimensionError, "rensa supports at most ", N, " dimensions, got ", count);
    }

    std::array<T, N> data_{};
    int size_ = 0;
};

}  // namespace rensa
