// Where dumps go: each printed dump to a stream (stdout in the CLIs) between a header and an end
// line that name it, and a copy of it, plus any files it makes, in the run's dump folder
// (<root>/<app>__<schedule>__<target>__<size>/). Halide-free.
#pragma once
#include <iostream>
#include <string>

#include "runtime/dump_options.h"

namespace solder {

struct DumpSubject {
    std::string app, schedule, target, size;
};

class DumpWriter {
public:
    DumpWriter(DumpOptions opts, DumpSubject subject, std::ostream &out = std::cout);

    bool on(const std::string &word) const { return opts_.on(word); }
    const DumpSubject &subject() const { return subject_; }
    // The run's dump folder, created on first use.
    std::string folder() const;
    // Prints "==== SOLDER_DUMP <word>: <app> (<size>) schedule <s> target <t> ====", the text,
    // and "==== end <word> ====", and saves the text as <folder>/<word>.txt (a folder that cannot be
    // made is noted, not thrown: the printed dump stands on its own).
    void print(const std::string &word, const std::string &text) const;

private:
    DumpOptions opts_;
    DumpSubject subject_;
    std::ostream &out_;
};

}  // namespace solder
