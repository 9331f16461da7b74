// SPDX-License-Identifier: MIT
#include "ptx_asm.h"

#include <utility>
#include <vector>

#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace simtcc {

bool isPtxSpecialRegister(StringRef name) {
    auto digits = [](StringRef s) {
        return !s.empty() && s.find_first_not_of("0123456789") == StringRef::npos;
    };
    StringRef rest = name;
    if (rest.consume_front("envreg")) // %envreg0..%envreg31
        return digits(rest);
    if (rest.consume_front("pm")) { // %pm0..%pm7, %pm0_64..%pm7_64
        rest.consume_back("_64");
        return digits(rest);
    }
    if (name.startswith("reserved_smem_offset_"))
        return true;
    return StringSwitch<bool>(name)
        .Cases("tid", "ntid", "laneid", "warpid", "nwarpid", "ctaid", "nctaid", true)
        .Cases("smid", "nsmid", "gridid", "clock", "clock_hi", "clock64", true)
        .Cases("globaltimer", "globaltimer_lo", "globaltimer_hi", true)
        .Cases("lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt", true)
        .Cases("is_explicit_cluster", "clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid",
               "cluster_ctarank", "cluster_nctarank", true)
        .Cases("total_smem_size", "aggr_smem_size", "dynamic_smem_size", "current_graph_exec", true)
        .Default(false);
}

namespace {

bool isIdentifierStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isIdentifierChar(char c) {
    return isIdentifierStart(c) || (c >= '0' && c <= '9');
}

// The buffer offsets, in `text`, before which a `%` is inserted in one
// template: its string literals' bodies, read as the one string they make.
void findLoneEscapes(StringRef text, const std::vector<StringRef> &bodies,
                     std::vector<size_t> &insertions) {
    std::vector<std::pair<char, size_t>> chars; // character, offset in text
    for (StringRef body : bodies)
        for (size_t i = 0; i < body.size(); ++i)
            chars.emplace_back(body[i], body.data() + i - text.data());
    for (size_t i = 0; i < chars.size();) {
        if (chars[i].first != '%') {
            ++i;
            continue;
        }
        size_t run = i;
        while (run < chars.size() && chars[run].first == '%')
            ++run;
        // "%%" is a literal `%`: only an odd run ends in an escape.
        if ((run - i) % 2 == 1 && run < chars.size() && isIdentifierStart(chars[run].first)) {
            std::string name;
            for (size_t k = run; k < chars.size() && isIdentifierChar(chars[k].first); ++k)
                name += chars[k].first;
            if (isPtxSpecialRegister(name))
                insertions.push_back(chars[run - 1].second);
        }
        i = run;
    }
}

} // namespace

std::optional<std::string> escapePtxSpecialRegisters(StringRef preprocessed,
                                                     const clang::LangOptions &language) {
    // A raw lexer: comments, line markers and pragmas are tokens like any
    // other, and string literals are never confused with code.
    clang::Lexer lexer(clang::SourceLocation(), language, preprocessed.begin(),
                       preprocessed.begin(), preprocessed.end());
    std::vector<size_t> insertions;
    clang::Token token;
    auto next = [&] {
        lexer.LexFromRawLexer(token);
        return !token.is(clang::tok::eof);
    };
    auto rawIdentifier = [&]() -> StringRef {
        return token.is(clang::tok::raw_identifier) ? token.getRawIdentifier() : StringRef();
    };
    bool more = next();
    while (more) {
        StringRef word = rawIdentifier();
        if (word != "asm" && word != "__asm" && word != "__asm__") {
            more = next();
            continue;
        }
        // asm [volatile] [inline] [goto] ( "template"... : operands )
        while ((more = next())) {
            StringRef qualifier = rawIdentifier();
            if (qualifier != "volatile" && qualifier != "__volatile" &&
                qualifier != "__volatile__" && qualifier != "inline" && qualifier != "__inline" &&
                qualifier != "__inline__" && qualifier != "goto")
                break;
        }
        if (!more || !token.is(clang::tok::l_paren))
            continue;
        std::vector<StringRef> bodies;
        while ((more = next()) && token.is(clang::tok::string_literal)) {
            StringRef literal(token.getLiteralData(), token.getLength());
            if (literal.size() >= 2 && literal.front() == '"' && literal.back() == '"')
                bodies.push_back(literal.drop_front().drop_back());
        }
        // Only extended asm (operands after a ':', or '::') reads escapes.
        if (more && (token.is(clang::tok::colon) || token.is(clang::tok::coloncolon)))
            findLoneEscapes(preprocessed, bodies, insertions);
    }
    if (insertions.empty())
        return std::nullopt;
    std::string escaped;
    escaped.reserve(preprocessed.size() + insertions.size());
    size_t from = 0;
    for (size_t at : insertions) {
        escaped.append(preprocessed.data() + from, at - from);
        escaped += '%';
        from = at;
    }
    escaped.append(preprocessed.data() + from, preprocessed.size() - from);
    return escaped;
}

} // namespace simtcc
