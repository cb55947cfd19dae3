// The words of a comma-separated knob value (SOLDER_DISABLE=a,b), in order, empty ones dropped.
// Words are taken as written: a word with spaces is an unknown word, reported as such.
#pragma once
#include <sstream>
#include <string>
#include <vector>

namespace solder {

inline std::vector<std::string> comma_words(const std::string &list) {
    std::vector<std::string> words;
    std::stringstream ss(list);
    std::string w;
    while (std::getline(ss, w, ','))
        if (!w.empty()) words.push_back(w);
    return words;
}

}  // namespace solder
