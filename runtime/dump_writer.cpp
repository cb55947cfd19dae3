#include "runtime/dump_writer.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace solder {
namespace fs = std::filesystem;

DumpWriter::DumpWriter(DumpOptions opts, DumpSubject subject, std::ostream &out)
    : opts_(std::move(opts)), subject_(std::move(subject)), out_(out) {}

std::string DumpWriter::folder() const {
    fs::path dir = fs::path(opts_.root) / dump_stem(subject_.app, subject_.schedule, subject_.target, subject_.size);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create the dump folder '" + dir.string() + "': " + ec.message());
    return dir.string();
}

void DumpWriter::print(const std::string &word, const std::string &text) const {
    std::string body = text;
    if (!body.empty() && body.back() != '\n') body += "\n";
    out_ << "==== SOLDER_DUMP " << word << ": " << subject_.app << " (" << subject_.size << ") schedule "
         << subject_.schedule << " target " << subject_.target << " ====\n"
         << body << "==== end " << word << " ====\n";
    try {
        std::ofstream(fs::path(folder()) / (word + ".txt")) << body;
    } catch (const std::exception &e) {
        out_ << "(the " << word << " dump was not saved: " << e.what() << ")\n";  // printed is enough to go on
    }
    out_.flush();
}

}  // namespace solder
