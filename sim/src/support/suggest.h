// "Did you mean X?" for a misspelt field name: the closest known name by
// edit distance, shared by every reader of configuration files.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simtgpu::sim {

// Levenshtein distance: insertions, deletions and substitutions.
inline size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// The fix for an unknown field `key`: the closest of `names` when it is near
// enough to be a typing slip, else the whole list.
template <typename Names> std::string unknown_field_fix(std::string_view key, const Names &names) {
    std::string_view best;
    size_t best_distance = SIZE_MAX;
    std::string all;
    for (std::string_view name : names) {
        size_t d = edit_distance(key, name);
        if (d < best_distance) {
            best_distance = d;
            best = name;
        }
        all += (all.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    }
    if (best_distance <= std::max<size_t>(2, key.size() / 3))
        return "did you mean " + std::string(best) + "?";
    return "known fields are " + all;
}

} // namespace simtgpu::sim
