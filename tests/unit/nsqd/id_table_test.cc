#include "core/id_table.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>

#include "nsq/id_generator.h"

namespace nsq::nsqd {
namespace {

struct Value {
  int n = 0;
  std::shared_ptr<int> held;  // released when its entry is erased
};

MessageId id_of(std::uint64_t k) { return format_message_id(k); }

TEST(IdTable, AddsFindsAndErasesById) {
  IdTable<Value> table;
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(table.find(id_of(1)), nullptr);
  EXPECT_FALSE(table.erase(id_of(1)));

  auto [first, added] = table.try_emplace(id_of(1));
  ASSERT_TRUE(added);
  EXPECT_EQ(first->n, 0) << "a new entry is value-initialized";
  first->n = 7;
  auto [again, added_again] = table.try_emplace(id_of(1));
  EXPECT_FALSE(added_again);
  EXPECT_EQ(again, first);
  EXPECT_EQ(again->n, 7);
  EXPECT_EQ(table.size(), 1u);

  auto held = std::make_shared<int>(1);
  first->held = held;
  EXPECT_TRUE(table.erase(id_of(1)));
  EXPECT_EQ(held.use_count(), 1) << "what the entry held is released at once";
  EXPECT_EQ(table.find(id_of(1)), nullptr);
  EXPECT_TRUE(table.empty());
  EXPECT_FALSE(table.erase(id_of(1)));
}

TEST(IdTable, VisitSeesTheEntryAndErasesItWhenAsked) {
  IdTable<Value> table;
  EXPECT_FALSE(table.visit(id_of(3), [](Value&) { return true; }));
  table.try_emplace(id_of(3)).first->n = 3;
  int seen = 0;
  EXPECT_TRUE(table.visit(id_of(3), [&](Value& v) {
    seen = v.n;
    return false;  // kept
  }));
  EXPECT_EQ(seen, 3);
  ASSERT_NE(table.find(id_of(3)), nullptr);
  EXPECT_TRUE(table.visit(id_of(3), [](Value&) { return true; }));
  EXPECT_EQ(table.find(id_of(3)), nullptr);
  EXPECT_TRUE(table.empty());
}

TEST(IdTable, EntriesKeepTheirAddressWhileTheTableGrows) {
  IdTable<Value> table;
  Value* first = table.try_emplace(id_of(42)).first;
  first->n = 42;
  for (std::uint64_t k = 1000; k < 101000; ++k) table.try_emplace(id_of(k)).first->n = int(k);
  EXPECT_EQ(table.find(id_of(42)), first);
  EXPECT_EQ(first->n, 42);
  EXPECT_EQ(table.size(), 100001u);
}

// Random adds and erases against std::map, with ids as Go's generator makes
// them (a counter in the low bits) and random ones: every lookup agrees,
// through growth and the backward shifts of erases.
TEST(IdTable, AgreesWithAMapUnderRandomAddsAndErases) {
  std::mt19937_64 rng(12345);
  IdTable<Value> table;
  std::map<MessageId, int> model;
  std::uint64_t counter = std::uint64_t(1) << 50;
  std::vector<MessageId> known;
  for (int step = 0; step < 200000; ++step) {
    const auto r = rng() % 10;
    if (r < 5 || known.empty()) {
      const MessageId id = (rng() % 2) ? id_of(++counter) : id_of(rng());
      auto [v, added] = table.try_emplace(id);
      EXPECT_EQ(added, model.count(id) == 0);
      if (added) {
        v->n = step;
        model[id] = step;
        known.push_back(id);
      }
    } else if (r < 8) {
      const std::size_t k = rng() % known.size();
      const MessageId id = known[k];
      known[k] = known.back();
      known.pop_back();
      EXPECT_EQ(table.erase(id), model.erase(id) == 1);
    } else {
      const MessageId id = known[rng() % known.size()];
      Value* v = table.find(id);
      ASSERT_NE(v, nullptr);
      EXPECT_EQ(v->n, model.at(id));
    }
    ASSERT_EQ(table.size(), model.size());
  }
  for (const auto& [id, n] : model) {
    Value* v = table.find(id);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->n, n);
  }
  std::size_t seen = 0;
  table.for_each([&](const MessageId& id, Value& v) {
    ++seen;
    EXPECT_EQ(model.at(id), v.n);
  });
  EXPECT_EQ(seen, model.size());
}

TEST(IdTable, ClearEmptiesAndTheTableIsUsableAgain) {
  IdTable<Value> table;
  auto held = std::make_shared<int>(1);
  for (std::uint64_t k = 0; k < 1000; ++k) table.try_emplace(id_of(k)).first->held = held;
  table.clear();
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(held.use_count(), 1);
  EXPECT_EQ(table.find(id_of(5)), nullptr);
  EXPECT_TRUE(table.try_emplace(id_of(5)).second);
  EXPECT_NE(table.find(id_of(5)), nullptr);
}

}  // namespace
}  // namespace nsq::nsqd
