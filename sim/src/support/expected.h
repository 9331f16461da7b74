// A value or an error message: what bad input can cause is returned, never
// thrown or printed (the edge of the program prints it).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace simtgpu {

struct Error {
    std::string message;
};

template <typename T> class [[nodiscard]] Expected {
public:
    Expected(T value) : storage_(std::move(value)) {}
    Expected(Error error) : storage_(std::move(error)) {}

    explicit operator bool() const { return std::holds_alternative<T>(storage_); }
    T &operator*() { return std::get<T>(storage_); }
    const T &operator*() const { return std::get<T>(storage_); }
    T *operator->() { return &std::get<T>(storage_); }
    const T *operator->() const { return &std::get<T>(storage_); }
    const std::string &error() const { return std::get<Error>(storage_).message; }

private:
    std::variant<T, Error> storage_;
};

} // namespace simtgpu
