// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace ringside {

// An error a user can read: it names the file and says what is wrong with it.
struct Error {
    std::string message;
};

// The error for an exception caught at the core's boundary, while working on `path`.
inline Error errorFromException(const std::string& path, const std::exception_ptr& failure)
{
    try {
        std::rethrow_exception(failure);
    } catch (const std::bad_alloc&) {
        return Error{path + ": out of memory while loading"};
    } catch (const std::exception& e) {
        return Error{path + ": loading failed: " + e.what()};
    } catch (...) {
        return Error{path + ": loading failed with an unknown error"};
    }
}

// Value-or-error for fallible core APIs; no exception crosses the core's boundary.
template <typename T>
class Result {
public:
    Result(T value) : m_data(std::move(value)) {}
    Result(Error error) : m_data(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<T>(m_data); }
    const T& value() const { return std::get<T>(m_data); }
    T& operator*() { return value(); }
    T* operator->() { return &value(); }
    const Error& error() const { return std::get<Error>(m_data); }

private:
    std::variant<T, Error> m_data;
};

} // namespace ringside
