// Checks the cluster's TLS files with OpenSSL itself (see cluster_tls.hpp).
#include "engine/cluster_tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

namespace cuzk::engine {

namespace {

std::string openssl_reason() {
  std::string why;
  while (auto e = ERR_get_error()) {
    if (const char* r = ERR_reason_error_string(e)) why = r;  // the last one is the innermost
  }
  return why.empty() ? "" : " (" + why + ")";
}

std::string quoted(const char* key, const std::string& path) { return std::string("cluster ") + key + " '" + path + "'"; }

// A passphrase callback that has none: an encrypted key fails to load instead of prompting.
int no_passphrase(char*, int, int, void*) { return 0; }

}  // namespace

std::string cluster_tls_problem(const std::string& cert, const std::string& key, const std::string& ca) {
  const struct {
    const char* name;
    const std::string& path;
  } files[] = {{"tls_cert", cert}, {"tls_key", key}, {"tls_ca", ca}};
  int set = 0;
  for (auto& f : files) set += !f.path.empty();
  if (set == 0) return "";
  for (auto& f : files)
    if (f.path.empty())
      return std::string("cluster ") + f.name + ": unset (tls_cert, tls_key and tls_ca are set together or not at all)";
  for (auto& f : files) {
    std::ifstream in(f.path, std::ios::binary);
    if (!in || in.peek() == std::char_traits<char>::eof())
      return quoted(f.name, f.path) + ": cannot read (" + (in ? "empty" : std::strerror(errno)) + ")";
  }
  ERR_clear_error();
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_method()), SSL_CTX_free);
  if (!ctx) return "cluster tls: OpenSSL cannot make a context" + openssl_reason();
  SSL_CTX_set_default_passwd_cb(ctx.get(), no_passphrase);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert.c_str()) != 1)
    return quoted("tls_cert", cert) + ": not a PEM certificate" + openssl_reason();
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    // Loading checks the key against the certificate already.
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH || ERR_peek_last_error() == 0) {
      ERR_clear_error();
      return quoted("tls_key", key) + ": does not match tls_cert '" + cert + "'";
    }
    return quoted("tls_key", key) + ": not an unencrypted PEM private key" + openssl_reason();
  }
  if (SSL_CTX_load_verify_locations(ctx.get(), ca.c_str(), nullptr) != 1)
    return quoted("tls_ca", ca) + ": no PEM CA certificate" + openssl_reason();
  // This node's own certificate must pass the check its peers make with the same CA.
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> vctx(X509_STORE_CTX_new(), X509_STORE_CTX_free);
  if (!vctx || X509_STORE_CTX_init(vctx.get(), SSL_CTX_get_cert_store(ctx.get()), SSL_CTX_get0_certificate(ctx.get()),
                                   nullptr) != 1)
    return "cluster tls: OpenSSL cannot check the certificate" + openssl_reason();
  STACK_OF(X509)* chain = nullptr;
  SSL_CTX_get0_chain_certs(ctx.get(), &chain);
  if (chain) X509_STORE_CTX_set0_untrusted(vctx.get(), chain);
  if (X509_verify_cert(vctx.get()) != 1)
    return quoted("tls_cert", cert) + ": not accepted by tls_ca '" + ca +
           "' (" + X509_verify_cert_error_string(X509_STORE_CTX_get_error(vctx.get())) + ")";
  ERR_clear_error();
  return "";
}

}  // namespace cuzk::engine
