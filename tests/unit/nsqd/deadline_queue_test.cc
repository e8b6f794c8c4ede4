#include "core/deadline_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace nsq::nsqd {
namespace {

struct Item {
  int deadline = 0;
  int id = 0;
  Item* prev = nullptr;
  Item* next = nullptr;
  std::size_t heap_index = 0;
  std::uint8_t lane = 0;
};

using Queue = DeadlineQueue<Item, int>;

// Pops everything, returning the deadlines in pop order.
std::vector<int> drain(Queue& q) {
  std::vector<int> out;
  while (!q.empty()) {
    Item* top = q.top();
    out.push_back(top->deadline);
    q.remove(top);
  }
  return out;
}

TEST(DeadlineQueue, OneTimeoutIsALaneInOrder) {
  std::vector<Item> items(6);
  Queue q;
  for (int i = 0; i < 6; ++i) {
    items[i].deadline = 10 + i;
    q.push(&items[i], 10);
  }
  EXPECT_EQ(q.size(), 6u);
  EXPECT_EQ(items[5].lane, 0);
  // Removed from the middle, the front and the back: the rest stays in order.
  q.remove(&items[2]);
  q.remove(&items[0]);
  q.remove(&items[5]);
  EXPECT_EQ(drain(q), (std::vector<int>{11, 13, 14}));
}

TEST(DeadlineQueue, TheEarliestOfAllLanesComesFirst) {
  std::vector<Item> items(6);
  Queue q;
  const int timeouts[] = {60, 5, 60, 5, 30, 30};
  for (int i = 0; i < 6; ++i) {
    items[i].deadline = i + timeouts[i];
    q.push(&items[i], timeouts[i]);
  }
  EXPECT_EQ(drain(q), (std::vector<int>{6, 8, 34, 35, 60, 62}));
}

// A deadline earlier than its lane's last (a TOUCH capped by the maximum)
// goes to the heap, as does a timeout beyond the lanes' number.
TEST(DeadlineQueue, WhatDoesNotFitALaneGoesToTheHeap) {
  std::vector<Item> items(8);
  Queue q;
  items[0].deadline = 100;
  q.push(&items[0], 100);
  items[1].deadline = 50;  // capped: before the lane's last
  q.push(&items[1], 100);
  EXPECT_EQ(items[1].lane, Queue::kInHeap);
  for (int i = 2; i < 8; ++i) {  // six more timeouts: three take lanes, three do not
    items[i].deadline = 200 - i;
    q.push(&items[i], i);
  }
  EXPECT_EQ(items[7].lane, Queue::kInHeap);
  EXPECT_EQ(q.top(), &items[1]);
  EXPECT_EQ(drain(q), (std::vector<int>{50, 100, 193, 194, 195, 196, 197, 198}));
}

// A lane left empty takes the next new timeout.
TEST(DeadlineQueue, AnEmptyLaneIsReused) {
  std::vector<Item> items(6);
  Queue q;
  for (int i = 0; i < 4; ++i) {
    items[i].deadline = 10;
    q.push(&items[i], i + 1);
  }
  q.remove(&items[2]);
  items[4].deadline = 20;
  q.push(&items[4], 99);
  EXPECT_EQ(items[4].lane, 2);
  items[5].deadline = 30;
  q.push(&items[5], 98);
  EXPECT_EQ(items[5].lane, Queue::kInHeap);
  q.clear();
  EXPECT_TRUE(q.empty());
}

// Random pushes (a few timeouts, a clock that moves on, some deadlines
// capped below their lane), removals and re-pushes against a sorted model.
TEST(DeadlineQueue, MatchesAModelUnderRandomOperations) {
  std::mt19937 rng(20261206);
  constexpr int kItems = 512;
  std::vector<std::unique_ptr<Item>> items;
  for (int i = 0; i < kItems; ++i) {
    items.push_back(std::make_unique<Item>());
    items.back()->id = i;
  }
  std::vector<bool> queued(kItems, false);
  std::multiset<std::pair<int, int>> model;  // (deadline, id)
  Queue q;
  int now = 0;
  const int timeouts[] = {100, 250, 1000, 60, 7, 5000};
  for (int step = 0; step < 200000; ++step) {
    now += static_cast<int>(rng() % 3);
    Item& it = *items[rng() % kItems];
    const int op = static_cast<int>(rng() % 10);
    if (!queued[it.id] && op < 6) {
      const int timeout = timeouts[rng() % 6];
      it.deadline = rng() % 20 == 0 ? now + static_cast<int>(rng() % 50) : now + timeout;
      q.push(&it, timeout);
      model.insert({it.deadline, it.id});
      queued[it.id] = true;
    } else if (queued[it.id]) {
      q.remove(&it);
      model.erase(model.find({it.deadline, it.id}));
      queued[it.id] = false;
    } else if (!q.empty()) {
      // Expiry: the earliest deadline comes out first.
      Item* top = q.top();
      ASSERT_EQ(top->deadline, model.begin()->first) << "step " << step;
      q.remove(top);
      model.erase(model.find({top->deadline, top->id}));
      queued[top->id] = false;
    }
    ASSERT_EQ(q.size(), model.size());
    if (!model.empty()) {
      ASSERT_EQ(q.top()->deadline, model.begin()->first) << "step " << step;
    }
  }
}

}  // namespace
}  // namespace nsq::nsqd
