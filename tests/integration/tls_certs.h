#pragma once

// Test PKI made at test time with the openssl CLI (no private key is
// committed): a CA, a server certificate for 127.0.0.1 signed by it, a client
// certificate (CN "test-client") signed by it, and a self-signed client
// certificate no CA vouches for. EC P-256 keys: fast to make.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "testutil/temp_dir.h"

namespace nsq::integration {

class TestPki {
 public:
  TestPki() {
    const std::string d = dir_.path().string();
    auto run = [&](const std::string& cmd) {
      if (ok_ && std::system((cmd + " >>" + d + "/openssl.log 2>&1").c_str()) != 0) {
        ok_ = false;
        error_ = "failed: " + cmd;
      }
    };
    {
      std::ofstream ext(d + "/server.ext");
      ext << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
    }
    const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    run("openssl req -x509 " + key + " -keyout " + d + "/ca.key -out " + d +
        "/ca.pem -days 2 -subj /CN=nsq-test-ca");
    run("openssl req " + key + " -keyout " + d + "/server.key -out " + d +
        "/server.csr -subj /CN=127.0.0.1");
    run("openssl x509 -req -in " + d + "/server.csr -CA " + d + "/ca.pem -CAkey " + d +
        "/ca.key -CAcreateserial -out " + d + "/server.pem -days 2 -extfile " + d + "/server.ext");
    run("openssl req " + key + " -keyout " + d + "/client.key -out " + d +
        "/client.csr -subj /CN=test-client");
    run("openssl x509 -req -in " + d + "/client.csr -CA " + d + "/ca.pem -CAkey " + d +
        "/ca.key -CAcreateserial -out " + d + "/client.pem -days 2");
    run("openssl req -x509 " + key + " -keyout " + d + "/rogue.key -out " + d +
        "/rogue.pem -days 2 -subj /CN=rogue-client");
  }

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  std::string file(const std::string& name) const { return (dir_.path() / name).string(); }
  std::string ca() const { return file("ca.pem"); }
  std::string server_cert() const { return file("server.pem"); }
  std::string server_key() const { return file("server.key"); }
  std::string client_cert() const { return file("client.pem"); }
  std::string client_key() const { return file("client.key"); }
  std::string rogue_cert() const { return file("rogue.pem"); }
  std::string rogue_key() const { return file("rogue.key"); }

 private:
  testutil::TempDir dir_;
  bool ok_ = true;
  std::string error_;
};

}  // namespace nsq::integration
