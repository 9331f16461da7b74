#include "device_printf.h"

#include <cstdio>
#include <cstring>

namespace simtgpu::umd {

namespace {

// Reads the next argument of `size` bytes at its natural alignment.
class ArgReader {
public:
    ArgReader(const uint8_t *args, size_t bytes) : args_(args), bytes_(bytes) {}
    bool next(size_t size, void *out) {
        size_t at = (pos_ + size - 1) / size * size;
        if (at + size > bytes_)
            return false;
        std::memcpy(out, args_ + at, size);
        pos_ = at + size;
        return true;
    }

private:
    const uint8_t *args_;
    size_t bytes_;
    size_t pos_ = 0;
};

template <typename T> std::string format_one(const std::string &spec, T value) {
    char small[128];
    int n = std::snprintf(small, sizeof(small), spec.c_str(), value);
    if (n < 0)
        return {};
    if (size_t(n) < sizeof(small))
        return std::string(small, size_t(n));
    std::string big(size_t(n) + 1, '\0');
    std::snprintf(big.data(), big.size(), spec.c_str(), value);
    big.resize(size_t(n));
    return big;
}

} // namespace

std::string format_device_printf(const std::string &format, const uint8_t *args,
                                 size_t args_bytes, const DeviceStringReader &read_string) {
    std::string out;
    ArgReader reader(args, args_bytes);
    size_t i = 0;
    while (i < format.size()) {
        char c = format[i];
        if (c != '%') {
            out += c;
            ++i;
            continue;
        }
        if (i + 1 < format.size() && format[i + 1] == '%') {
            out += '%';
            i += 2;
            continue;
        }
        // %[flags][width][.precision][length]conversion; '*' reads an int.
        size_t start = i++;
        std::string spec = "%";
        while (i < format.size() && std::strchr("-+ #0", format[i]))
            spec += format[i++];
        auto read_number = [&] {
            if (i < format.size() && format[i] == '*') {
                int v = 0;
                reader.next(4, &v);
                spec += std::to_string(v);
                ++i;
                return;
            }
            while (i < format.size() && format[i] >= '0' && format[i] <= '9')
                spec += format[i++];
        };
        read_number();
        if (i < format.size() && format[i] == '.') {
            spec += format[i++];
            read_number();
        }
        int longs = 0;
        bool wide = false; // size_t, intmax_t, ptrdiff_t: 64-bit on the device
        while (i < format.size() && std::strchr("hlLqjzt", format[i])) {
            char m = format[i++];
            if (m == 'l')
                ++longs;
            else if (m == 'q' || m == 'L')
                longs = 2;
            else if (m == 'j' || m == 'z' || m == 't')
                wide = true;
        }
        if (i >= format.size()) {
            out += format.substr(start);
            break;
        }
        char conv = format[i++];
        bool is64 = longs > 0 || wide;
        switch (conv) {
        case 'd':
        case 'i': {
            if (is64) {
                int64_t v = 0;
                reader.next(8, &v);
                out += format_one(spec + "lld", static_cast<long long>(v));
            } else {
                int32_t v = 0;
                reader.next(4, &v);
                out += format_one(spec + "d", v);
            }
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            if (is64) {
                uint64_t v = 0;
                reader.next(8, &v);
                out += format_one(spec + "ll" + conv, static_cast<unsigned long long>(v));
            } else {
                uint32_t v = 0;
                reader.next(4, &v);
                out += format_one(spec + conv, v);
            }
            break;
        }
        case 'c': {
            int32_t v = 0;
            reader.next(4, &v);
            out += format_one(spec + "c", v);
            break;
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
        case 'a':
        case 'A': {
            double v = 0;
            reader.next(8, &v);
            out += format_one(spec + conv, v);
            break;
        }
        case 'p': {
            uint64_t v = 0;
            reader.next(8, &v);
            out += format_one(spec + "p", reinterpret_cast<void *>(v));
            break;
        }
        case 's': {
            uint64_t va = 0;
            reader.next(8, &va);
            std::string text;
            if (!va)
                text = "(null)";
            else if (!read_string(va, &text))
                text = "<bad string>";
            out += format_one(spec + "s", text.c_str());
            break;
        }
        default:
            out += format.substr(start, i - start); // unknown: print it as written
            break;
        }
    }
    return out;
}

} // namespace simtgpu::umd
