#pragma once
// Typed errors of rensa and the RENSA_CHECK / RENSA_THROW / RENSA_ASSERT macros.
// Errors a user can cause throw a subclass of rensa::Error whose message names the
// routine and the offending shapes/dtypes/axes; internal invariants use RENSA_ASSERT.

#include <sstream>
#include <stdexcept>
#include <string>

namespace rensa {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class DimensionError : public Error {  // shapes, ranks, axes that do not fit
public:
    using Error::Error;
};
class DtypeError : public Error {  // unsupported or mismatched dtypes
public:
    using Error::Error;
};
class DeviceError : public Error {  // devices that are missing or do not match
public:
    using Error::Error;
};
class IndexError : public Error {  // indices out of range
public:
    using Error::Error;
};
class NotImplementedError : public Error {
public:
    using Error::Error;
};
class ValueError : public Error {  // bad argument values
public:
    using Error::Error;
};
class KeyError : public Error {  // a name or key that is missing or not allowed (file members, observers)
public:
    using Error::Error;
};
class IOError : public Error {  // a file that cannot be opened, read, written, or is malformed
public:
    using Error::Error;
};
class OutOfMemoryError : public Error {  // an allocation failed; the message names the bytes
public:
    using Error::Error;
};

namespace detail {

template <class... Args>
std::string concat(const Args&... args) {
    std::ostringstream os;
    (os << ... << args);
    return os.str();
}

[[noreturn]] void assert_fail(const char* expr, const char* file, int line);

}  // namespace detail
}  // namespace rensa

#define RENSA_THROW(Type, ...) throw ::rensa::Type(::rensa::detail::concat(__VA_ARGS__))

#define RENSA_CHECK(cond, Type, ...)        \
    do {                                    \
        if (!(cond)) [[unlikely]] {         \
            RENSA_THROW(Type, __VA_ARGS__); \
        }                                   \
    } while (false)

#define RENSA_ASSERT(cond)                                           \
    do {                                                             \
        if (!(cond)) [[unlikely]] {                                  \
            ::rensa::detail::assert_fail(#cond, __FILE__, __LINE__); \
        }                                                            \
    } while (false)
