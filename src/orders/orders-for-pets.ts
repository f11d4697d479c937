// The orders' side of a pet's maintenance: what the pets feature may ask of orders (its port, PetOrders in
// pets/pet-orders.ts, is handed this by services.ts). The one entry to the orders for another feature.
import { findPlacedOrderIdOfPet } from './order.repository.js'

export const ordersForPets = {
  placedOrderOf: findPlacedOrderIdOfPet,
}
