// [cluster] tls_cert / tls_key / tls_ca, checked before the actor system starts: CAF's OpenSSL
// module loads them again for every connection and has no way to report a bad file but to throw
// on its multiplexer thread, so a start with unusable files is refused here, naming key and file.
#pragma once

#include <string>

namespace cuzk::engine {

// "" when all three are unset or all three are usable (readable PEM, the key unencrypted and
// matching the certificate, the certificate signed by the CA); otherwise one line such as
// "cluster tls_key '/etc/cuzk/node.key': cannot read (No such file or directory)".
std::string cluster_tls_problem(const std::string& cert, const std::string& key, const std::string& ca);

}  // namespace cuzk::engine
