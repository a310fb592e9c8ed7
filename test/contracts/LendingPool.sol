// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC20Lite {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// A lending pool emitting the v3 Pool events with their real signatures
/// (interest rate modes are the DataTypes.InterestRateMode enum, uint8 in the ABI).
contract LendingPool {
    event Supply(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode);
    event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount);
    event Borrow(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint8 interestRateMode, uint256 borrowRate, uint16 indexed referralCode);
    event Repay(address indexed reserve, address indexed user, address indexed repayer, uint256 amount, bool useATokens);
    event FlashLoan(address indexed target, address initiator, address indexed asset, uint256 amount, uint8 interestRateMode, uint256 premium, uint16 indexed referralCode);
    event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken);

    uint256 public borrowRate = 45e24; // 4.5% a year, in ray

    function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external {
        IERC20Lite(asset).transferFrom(msg.sender, address(this), amount);
        emit Supply(asset, msg.sender, onBehalfOf, amount, referralCode);
    }

    function withdraw(address asset, uint256 amount, address to) external returns (uint256) {
        IERC20Lite(asset).transfer(to, amount);
        emit Withdraw(asset, msg.sender, to, amount);
        return amount;
    }

    function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf) external {
        IERC20Lite(asset).transfer(msg.sender, amount);
        borrowRate += 1e24;
        emit Borrow(asset, msg.sender, onBehalfOf, amount, uint8(interestRateMode), borrowRate, referralCode);
    }

    function repay(address asset, uint256 amount, uint256, address onBehalfOf) external returns (uint256) {
        IERC20Lite(asset).transferFrom(msg.sender, address(this), amount);
        emit Repay(asset, onBehalfOf, msg.sender, amount, false);
        return amount;
    }

    function repayWithATokens(address asset, uint256 amount, uint256) external returns (uint256) {
        emit Repay(asset, msg.sender, msg.sender, amount, true);
        return amount;
    }

    function flashLoanSimple(address receiverAddress, address asset, uint256 amount, bytes calldata, uint16 referralCode) external {
        uint256 premium = (amount * 5) / 10000;
        IERC20Lite(asset).transferFrom(msg.sender, address(this), premium);
        emit FlashLoan(receiverAddress, msg.sender, asset, amount, 0, premium, referralCode);
    }

    function liquidationCall(address collateralAsset, address debtAsset, address user, uint256 debtToCover, uint256 collateralOut, bool receiveAToken) external {
        IERC20Lite(debtAsset).transferFrom(msg.sender, address(this), debtToCover);
        IERC20Lite(collateralAsset).transfer(msg.sender, collateralOut);
        emit LiquidationCall(collateralAsset, debtAsset, user, debtToCover, collateralOut, msg.sender, receiveAToken);
    }
}
